/* const.c - the start-up baseline for bench/run.sh: a C program that only
 * prints the constant adcalc's README example prints first, so the ratio
 * adcalc/const is adcalc's own start-up + parse + sweep + print cost over
 * the bare cost of exec'ing a dynamically linked C program. */
#include <stdio.h>

int main(void)
{
    fputs("value = 6.909297426825682\nd/dx  = 2.5838531634528574\nd/dy  = 2\n", stdout);
    return 0;
}
