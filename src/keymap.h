/* keymap: key -> action table (placeholder). */
#ifndef TFLAME_KEYMAP_H
#define TFLAME_KEYMAP_H
#endif
