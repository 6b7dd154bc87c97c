/* batch.h - batch mode (--points): the expressions are recorded once and
 * every row of a file is a point, replayed on the tape with no allocation
 * per point, giving one output row in input order (or an error naming its
 * line, with --on-error stop|skip|nan).
 *
 * The files: batch.c sets a run up (columns, tape, plan) and runs it;
 * batch_read.c reads the header (or the first JSON row, whose members
 * name the columns; x[1] .. x[n] make the vector x) and the input in
 * chunks of whole lines or binary rows, and parses a text or JSON row;
 * batch_rows.c computes and formats the rows of a chunk (the
 * block replay, and the derivation step for what the block does not
 * finish); batch_pipe.c runs chunks on -j threads and writes them in
 * order.  Rows are independent (row in, row out), so the input can be
 * split and the outputs concatenated (parallel --pipe, xargs, streaming
 * jobs). */
#ifndef CLI_BATCH_H
#define CLI_BATCH_H

#include <stdio.h>
#include "adcalc.h"
#include "buf.h"
#include "expect.h"
#include "names.h"
#include "point_file.h"
#include "sigma.h"
#include "options.h"

/* runs batch mode; returns the exit status */
int cli_batch(const cli_options *o);

#define CLI_BATCH_CHUNK_BYTES (1 << 20)   /* text read per chunk */
#define CLI_BATCH_CHUNK_ROWS 4096         /* binary rows per chunk (F2 ran fastest at 4096 of 1024-8192) */

/* a vector of the points: the columns name[1] .. name[len] */
typedef struct {
    const char *name;   /* its first namelen bytes */
    size_t namelen, len;
} cli_batch_vec;

/* JSON rows: the first row's members, which every row has, in any order */
typedef struct {
    cli_jpoint first;         /* its members (their numbers are fields first ..) */
    char **keys;              /* their names */
    cli_nameset set;          /* ... to look them up */
    char *text;               /* the storage of the keys and of the fields' names */
} cli_batch_json;

/* what every row computes, fixed before the first row */
typedef struct {
    const cli_options *o;
    ad_tape *t;
    ad_plan *plan;
    const ad_layout *L;
    size_t ncol;              /* the variable columns of a row (numbers) */
    char **colnames;          /* their names */
    size_t nfields;           /* text rows: all the fields of a line */
    char **fieldnames;        /* their names (unquoted) */
    long *field_col;          /* field f's variable column, or -1: text, passed through */
    size_t passed;            /* the fields passed through */
    cli_batch_vec *vecs;      /* the vectors whose elements are fields */
    size_t nvecs;
    long *field_vec;          /* field f's vector (an element's column), or -1 */
    cli_batch_json *json;     /* the rows are JSON objects, or NULL */
    size_t nvars;             /* the point: the columns, then -at's values */
    const double *tail;       /* -at's values */
    char sep;                 /* the separator of the input's text rows: tab, ',', ';' or ' ' (blanks) */
    char osep;                /* the separator of the output's text rows */
    const char *name;         /* the input's name for diagnostics */
    const char *exprs_json;   /* the expressions as a JSON value */
    int blocks;               /* rows go through the block replay */
    ad_block_fn *jit;         /* ...compiled (--jit), or NULL */
    const cli_expect *E;      /* --expect's formulas, or NULL */
    const cli_sigma *S;       /* --sigma's covariance, or NULL */
} cli_batch_plan;

/* the verdicts a row can fail: --check's, --expect's */
enum { CLI_VERDICT_CHECK, CLI_VERDICT_EXPECT, CLI_VERDICTS };

/* a row that failed */
typedef struct {
    long line, col;           /* col: 0, or the column of a JSON row's error */
    ad_errclass cls;
    char msg[1200];           /* the message, the source's name and position */
} cli_batch_err;

/* one chunk of input, what became of it, and the workspace of the thread
 * computing it (kept across chunks) */
typedef struct {
    const cli_batch_plan *P;
    char *in;                 /* text: whole lines; binary: rows of doubles */
    size_t inlen, incap;
    long first_line;          /* line (or row) number of its first row */
    cli_buf out;              /* the formatted output */
    cli_batch_err *err;           /* errors, in order */
    size_t nerr, errcap;
    int stopped;              /* --on-error stop hit an error here */
    size_t cut;               /* binary: bytes of a last row cut short */
    int read_err;             /* the read after this chunk failed: its errno */
    size_t rows;
    size_t failed[CLI_VERDICTS];   /* rows that failed each verdict */
    long first_failed[CLI_VERDICTS];   /* ...the first one's line */
    ad_work *w;
    double *point;            /* one point: nvars numbers */
    double *res;              /* one result row: width numbers */
    ad_check_item *items;     /* --check, --expect: one row's check, one item per column */
    ad_check_result chk;
    ad_work **ew;             /* --expect: a workspace per formula */
    double *given;            /* ...and their values at the row */
    int expect_failed;        /* ...and whether one of them disagrees there */
    double *sig, *scratch;    /* --sigma: a row's figures, room for H S */
    /* the block replay: rows waiting, their lines, results and flags */
    ad_block *bk;
    size_t B, pending;
    double *brows, *bout;
    long *bline;
    unsigned char *bflag;
    /* text rows: the line of the row at hand, and of the rows waiting */
    const char *rsrc;
    size_t rlen;
    const char **bsrc;
    size_t *blen;
    char *field;              /* a passed-through field's value, kept across rows */
    size_t fieldcap;
    cli_jpoint jrow;          /* JSON rows: the row at hand */
    unsigned char *jhit;      /* ... which of the first row's members it has */
} cli_batch_chunk;

int cli_batch_chunk_init(cli_batch_chunk *c, const cli_batch_plan *P);
void cli_batch_chunk_free(cli_batch_chunk *c);
/* computes and formats the rows of the chunk read into c (batch_rows.c) */
void cli_batch_run_chunk(cli_batch_chunk *c);

/* where reading is (batch_read.c): the next chunk's first line number,
 * and the partial last line of the chunk before (text) */
typedef struct {
    const cli_batch_plan *P;
    FILE *in;
    long next;
    char *carry;
    size_t carrylen;
    int eof;
} cli_batch_reader;

/* reads the next chunk into c; -1 when out of memory.  A read that fails
 * ends the input: what was read before it is the chunk, and c->read_err
 * says why (reported once the chunk is written). */
int cli_batch_read_chunk(cli_batch_reader *R, cli_batch_chunk *c);
/* the header: the columns from the first line that is neither blank nor
 * a comment (or from --vars, or the first JSON row's members), their
 * vectors (the columns x[1] .. x[n]) and the separator; *hline is the
 * lines it read, *first with --vars or JSON rows the first data line
 * (kept); the exit status of an error it reported, else 0 */
int cli_batch_read_header(cli_batch_plan *P, FILE *in, char **hdr, size_t *hdrcap, long *hline, char **first);
/* the first row read ahead of the rest (batch.c records the program at
 * it when the recording at no point failed on a path no row may take):
 * the input it took, given back to the reader, and the row's numbers */
typedef struct {
    char *bytes;              /* text: the lines up to the first row's; binary: its bytes */
    size_t len;
    long line;                /* the line (binary: the row) of its first byte */
    const char **names;       /* the row's numbers, by field (a text field */
    double *values;           /* ...that is no number is left out) */
    size_t n;                 /* 0: the input has no first row */
} cli_batch_ahead;

/* reads the first row after the header (first, read at line hline: the
 * first row already, with --vars or JSON rows).  0; -1 when out of
 * memory, -2 when reading failed (errno says why) */
int cli_batch_read_ahead(const cli_batch_plan *P, FILE *in, const char *first, long hline, cli_batch_ahead *A);
void cli_batch_ahead_free(cli_batch_ahead *A);
/* which fields are variables (numbers, in P->colnames) and which pass
 * through as text, once the tape is recorded: 0, or -1 when out of memory */
int cli_batch_field_kinds(cli_batch_plan *P);
/* the numbers of one text line's variable fields into cols; -1 with a
 * message on a bad row */
int cli_batch_parse_line(const cli_batch_plan *P, const char *s, size_t n, double *cols, char *why, size_t whyn);
/* the numbers of one JSON row into cols (row and hit: the chunk's); -1
 * with a message and *col its column (0: none) on a bad row, -2 when out
 * of memory */
int cli_batch_parse_json(const cli_batch_plan *P, cli_jpoint *row, unsigned char *hit, const char *s, size_t n,
                         double *cols, long *col, char *why, size_t whyn);
/* the separator a header line uses: a tab, else a ',' outside quotes,
 * else a ';', else blanks (' ') */
char cli_batch_separator(const char *line);
/* The field of s[0..n) that starts at *i (RFC 4180: a quoted field may
 * hold the separator and "" for a quote, within its line): its text
 * s[*b..*e), still with "" when quoted; *i moves past it and its
 * separator, *last says it was the line's last.  0, or -1 with why. */
int cli_batch_field(char sep, const char *s, size_t n, size_t *i, size_t *b, size_t *e, int *quoted, int *last,
                    char *why, size_t whyn);

/* what has been written (batch_pipe.c): the first error's status, a stop */
typedef struct {
    const cli_batch_plan *P;
    int status, stop;
    int write_err;            /* the errno of a write that failed */
    long rows_done;
    long failed[CLI_VERDICTS], first_failed[CLI_VERDICTS];   /* rows that failed each verdict, the first one's line */
    int progress;
    double t0;
    long last_report;
} cli_batch_writer;

/* reads, computes and writes every chunk on nthreads threads (the chunks
 * and their order are the same for any number): 1 when out of memory */
int cli_batch_pipe(cli_batch_reader *R, cli_batch_writer *W, cli_batch_chunk *ch, size_t nthreads);

#endif
