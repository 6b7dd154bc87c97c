/* line.h - the lines a session reads: on a terminal, GNU readline (line
 * editing, a history in ~/.adcalc_history, Tab completion, Control-C that
 * drops what is being typed), loaded when the session starts; otherwise
 * plain lines from stdin. */
#ifndef CLI_LINE_H
#define CLI_LINE_H

#include <signal.h>
#include <stddef.h>

/* what Tab offers: the session knows, the terminal asks */
typedef struct {
    /* 1 when the word being typed at the end of line is a file name (its
     * word starts after a blank only) */
    int (*file_word)(void *ctx, const char *line);
    /* the candidates for the word that starts at line[start]: at most max
     * into out, valid until the next call; the number, or -1 for file
     * names */
    long (*candidates)(void *ctx, const char *line, size_t start, const char **out, size_t max);
    void *ctx;
} cli_completion;

typedef struct {
    int interactive;
    int editing;          /* readline reads the lines (a terminal, and it loaded) */
    char history[4096];   /* the history file, "" for none */
    struct sigaction was; /* Control-C's handler before */
} cli_lines;

/* starts reading: on a terminal, the history, completion (c), and
 * Control-C caught */
void cli_lines_open(cli_lines *L, int interactive, const cli_completion *c);

/* The next line, without its newline (malloc'd, *len bytes, NUL bytes
 * and all).  NULL at the end of the input, or with *err set (errno) when
 * reading failed.  *cancelled: Control-C dropped what was typed before
 * (the line returned, if any, is a new one typed after it). */
char *cli_lines_read(cli_lines *L, const char *prompt, size_t *len, int *err, int *cancelled);

/* writes the history back (a warning when it cannot) and lets Control-C
 * go */
void cli_lines_close(cli_lines *L);

#endif
