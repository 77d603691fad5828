#include <stdio.h>
int main(void) { puts("1..0 # SKIP not written yet"); return 0; }
