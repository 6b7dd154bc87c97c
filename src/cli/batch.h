/* batch.h - batch mode: one recorded tape replayed over every row of a
 * points file (--points). */
#ifndef AD_BATCH_H
#define AD_BATCH_H

#include "options.h"

/* runs batch mode; returns the exit status */
int cli_batch(const cli_options *o);

#endif
