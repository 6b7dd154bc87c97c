/* block_avx2.c - block_sweep.c compiled for AVX2: four doubles per
 * instruction where the baseline (SSE2) has two.  AVX2 does not bring FMA,
 * and -std=c11 forbids contraction anyway, so both give the same bits;
 * block.c uses this one when the CPU has AVX2. */
#include "block.h"

#ifdef ADI_BLOCK_AVX2
#define ADI_BLOCK_FOR_AVX2 1
#include "block_sweep.c"
#else
typedef int adi_block_avx2_none;   /* ISO C wants something in a file */
#endif
