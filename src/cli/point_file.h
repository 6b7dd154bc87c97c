/* point_file.h - points written as JSON objects, {"x": [1, 2, 3], "y": 0.5}:
 * the reader of one such object, which -at @FILE and batch mode's JSON
 * rows share, and -at @FILE's bindings. */
#ifndef CLI_POINT_FILE_H
#define CLI_POINT_FILE_H

#include <stddef.h>
#include "adcalc.h"
#include "options.h"

/* one member of an object: "name": number, or "name": [number, ...] */
typedef struct {
    const char *name;   /* the key as written between its quotes (escapes not read) */
    size_t len;
    size_t at;          /* the offset of its opening quote */
    size_t first, n;    /* its numbers: v[first .. first + n) */
    int vector;         /* written as an array (of n >= 1 numbers) */
} cli_jmember;

/* an object read, and the storage kept for the next one (no allocation
 * once it has grown to the size of the objects read) */
typedef struct {
    cli_jmember *m;
    size_t nm, mcap;
    double *v;
    size_t nv, vcap;
    /* an error: where it is (an offset), why, and whether memory ran out */
    size_t err_at;
    int nomem;
    char why[200];
} cli_jpoint;

/* Reads the object at s[*i..n) (blanks before it skipped) into p, in
 * place of what p held; *i moves past it (and the blanks after it).
 * Numbers are read as -at reads them (cli_parse_number).  0, or -1 with
 * p->why, p->err_at and p->nomem. */
int cli_jpoint_read(cli_jpoint *p, const char *s, size_t n, size_t *i);
void cli_jpoint_free(cli_jpoint *p);

/* the object of s[0..n) with nothing but blanks after it: as
 * cli_jpoint_read */
int cli_jpoint_read_all(cli_jpoint *p, const char *s, size_t n);
/* the same for a point's object: also every key a variable name, given
 * once (-at @FILE, the first of batch mode's JSON rows) */
int cli_jpoint_read_point(cli_jpoint *p, const char *s, size_t n);

/* the line and column (from 1, in bytes) of offset at in s */
void cli_text_position(const char *s, size_t at, long *line, long *col);

/* -at @FILE: the object of text[0..n) added to b, a binding per number
 * and a vector per array, in the file's order.  An error in the text is
 * AD_E_SYNTAX with d->line and d->col its position; out of memory AD_E_IO
 * (d without a position). */
ad_errclass cli_point_file_bind(const char *text, size_t n, cli_bindings *b, ad_diag *d);

#endif
