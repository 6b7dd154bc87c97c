/* program.h - splitting a program into statements: the engine uses it to
 * record programs, the REPL to take a line apart. */
#ifndef AD_PROGRAM_H
#define AD_PROGRAM_H

#include <stddef.h>

typedef enum {
    AD_STMT_EMPTY,   /* only blanks and comments */
    AD_STMT_EXPR,    /* an expression */
    AD_STMT_ASSIGN,  /* name = expression */
    AD_STMT_DEF      /* name(params) = expression */
} ad_stmt_kind;

typedef struct {
    ad_stmt_kind kind;
    size_t off, len;      /* the statement's span (without its ';' or newline) */
    int line, col;        /* where it starts */
    size_t name_off, name_len;   /* ASSIGN, DEF: the name */
    size_t params_off, params_len;  /* DEF: the text between the parentheses */
    size_t rhs_off;       /* ASSIGN, DEF: the expression after '=' */
    int rhs_line, rhs_col;
} ad_stmt;

/* Reads the statement starting at *pos of src[0..len) (*line, *col are its
 * position) and advances all three past it.  Statements end at ';', at the
 * end, or at a line end outside parentheses that follows a name, a number
 * or ')' (so "x +" continues on the next line).  0 at the end of src. */
int ad_next_stmt(const char *src, size_t len, size_t *pos, int *line, int *col, ad_stmt *st);

#endif
