/* palette: frame name -> colour (placeholder). */
#ifndef TFLAME_PALETTE_H
#define TFLAME_PALETTE_H
#endif
