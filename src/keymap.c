/* Placeholder: the key table lands with the UI. */
#include "config.h"
#include "keymap.h"
