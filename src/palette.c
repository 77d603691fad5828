/* Placeholder: the palette module lands with the UI. */
#include "config.h"
#include "palette.h"
