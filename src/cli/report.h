/* report.h - the one diagnostic printer: every error of every mode (the
 * command line, expressions, batch rows and files, the REPL) goes through
 * cli_report, as text with the source line and a caret, or as a JSON
 * object under --format json; and the exit status of each error class. */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

#include "adcalc.h"
#include "options.h"
#include "buf.h"

/* what a diagnostic points at (all fields optional) */
typedef struct {
    const cli_source *src;   /* the source d's line:col is in (shown with a caret) */
    const char *file;        /* else a file (the points), at line ... */
    long line;               /* ... (0: the file as a whole) */
    long col;                /* ... and column (0: none) */
    int row;                 /* line counts binary rows */
    int session;             /* the REPL: usage errors do not point to --help */
} cli_where;

/* --check found a derivative that disagrees with finite differences */
#define CLI_EXIT_CHECK_FAILED 6

int cli_exit_code(ad_errclass cls);   /* 0, 1 .. 5 as documented */
/* d's message with the command's words for its hint, into buf */
const char *cli_message(const ad_diag *d, char *buf, size_t n);
/* d's error as a JSON object ({"tag": ..., "message": msg, and where}):
 * the diagnostic's, and a failed expression's record's (results.c) */
void cli_json_error(cli_buf *b, const cli_where *at, const ad_diag *d, const char *msg);
/* prints d on stderr, in o's format (o may be NULL: text) */
void cli_report(const cli_options *o, const cli_where *at, const ad_diag *d);
/* a diagnostic without a position: cls and the formatted message */
void cli_error(const cli_options *o, const cli_where *at, ad_errclass cls, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
