/* Calls the kernel of ../scalars.ir (its header comes in with -include) and prints the result
 * row by row: out = -relu(a * b / s) with a (4, 1) and b (3) broadcast to (4, 3). */
#include <stdio.h>

int main(void) {
  const float a[4] = {1.0f, -2.0f, 3.0f, 0.5f};
  const float b[3] = {1.0f, 2.0f, -4.0f};
  float out[SCALARS_NUMEL];
  scalars(a, b, 2.0, out);
  for (int i = 0; i < 4; i++) {
    printf("%g %g %g\n", out[3 * i], out[3 * i + 1], out[3 * i + 2]);
  }
  return 0;
}
