/* Calls the kernel emberc compiled from examples/silu.ir and checks it against the same
 * formula computed here in double precision. The inputs are those of examples/x.npy and
 * examples/b.npy, so the numbers match what ember-run printed. */
#include <math.h>
#include <stdio.h>

#include "silu.h"

int main(void) {
    float x[4][8], b[8], out[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) x[i][j] = (float)(((i * 8 + j) % 7 - 3) * 0.5);
    for (int j = 0; j < 8; j++) b[j] = (float)(j * 0.25 - 1.0);

    silu(&x[0][0], b, &out[0][0]);

    double worst = 0.0;
    for (int i = 0; i < 4; i++) {
        printf(i == 0 ? "[[" : " [");
        for (int j = 0; j < 8; j++) {
            double y = (double)x[i][j] + b[j];
            double want = y / (1.0 + exp(-y));
            double err = fabs(out[i][j] - want) / (fabs(want) + 1e-6);
            if (err > worst) worst = err;
            printf("%8.4f%s", out[i][j], j < 7 ? "," : "");
        }
        printf(i == 3 ? "]]\n" : "],\n");
    }
    printf("largest relative difference from the double-precision formula: %.2e\n", worst);
    return worst < 1e-5 ? 0 : 1;
}
