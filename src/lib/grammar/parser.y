/* parser.y - the grammar of an adcalc expression (pure Bison parser).
 *
 * There is no syntax tree: each rule records its operation on the tape as
 * it is reduced, so the tape is the parse.  Bison's stacks live on the heap
 * (never the C stack), so deep nesting is bounded by YYMAXDEPTH only.
 *
 * Precedence, lowest first, as in C: || , && , == != , < <= > >= ,
 * + - (left), * / (left), unary - + ! , ^ (right).  ^ binds tighter than
 * unary minus: -x^2 is -(x^2); 2^3^2 is 2^9.
 *
 * Control flow (flow.c has the statements): a comparison is decided by the
 * values the recording computes as it goes, and a condition is that
 * outcome, not a number.  Only the path taken is recorded: the right side
 * of && and || that C would not evaluate, and the branch of if(c, a, b)
 * not taken, are parsed (their errors reported) with prog->skip set, so that
 * no guard of theirs is kept and no node of theirs reaches the output. */
%define api.pure full
%define api.prefix {adi_yy}
%define parse.error custom
%define parse.lac full
%locations
%param {yyscan_t scanner}
%parse-param {adi_pctx *P}

%code requires {
#include "parse.h"
typedef void *yyscan_t;
typedef struct ADI_YYLTYPE {
    int first_line, first_column, last_line, last_column;
    unsigned off, end;    /* byte span in the source */
} ADI_YYLTYPE;
#define ADI_YYLTYPE_IS_DECLARED 1
}

%code provides {
int adi_yylex(ADI_YYSTYPE *lval, ADI_YYLTYPE *lloc, yyscan_t scanner);
void adi_lex_body(yyscan_t scanner);
#define ERROR ADI_YYerror
}

%code {
#include <string.h>
#include <stdio.h>
#include "alloc.h"

/* Bison's stacks double on the heap up to this depth; beyond it, or when
 * malloc fails first, the parse ends with an out-of-memory error */
#define YYMAXDEPTH 50000000
/* the first stacks, before they move to the heap, are on the C stack:
 * kept small, because inlining a user function parses its body in a
 * nested parse (call.c), one C frame of the parser per level */
#define YYINITDEPTH 16
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                      \
    do {                                                                 \
        if (N) {                                                         \
            (Cur) = YYRHSLOC(Rhs, 1);                                    \
            (Cur).last_line = YYRHSLOC(Rhs, N).last_line;                \
            (Cur).last_column = YYRHSLOC(Rhs, N).last_column;            \
            (Cur).end = YYRHSLOC(Rhs, N).end;                            \
        } else {                                                         \
            (Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line;       \
            (Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
            (Cur).off = (Cur).end = YYRHSLOC(Rhs, 0).end;                \
        }                                                                \
    } while (0)

static void adi_yyerror(ADI_YYLTYPE *l, yyscan_t scanner, adi_pctx *P, const char *msg);

/* record an operation; on failure (out of memory) leave through the lexer's jump */
static int32_t op(adi_pctx *P, int code, int32_t a, int32_t b, const ADI_YYLTYPE *l)
{
    int32_t i = adi_rec_op(P->t, code, a, b, l->first_line, l->first_column);
    if (i < 0) longjmp(P->oom, 1);
    adi_memo_op(P, 0, code, a, b, l->first_line, l->first_column, i);
    return i;
}

static adi_val number(int32_t node) { return (adi_val){node, -1}; }
static adi_val condition(int truth) { return (adi_val){-1, truth}; }

/* 0 when v is a number or a vector; else the error at l, and 1 */
static int not_number(adi_pctx *P, adi_val v, const ADI_YYLTYPE *l)
{
    if (v.cond < 0) return 0;
    adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
               "a condition is not a number: choose a value with if(condition, a, b)");
    return 1;
}

/* 0 when v is a number (not a vector); else the error at l, and 1 */
static int not_scalar(adi_pctx *P, adi_val v, const ADI_YYLTYPE *l, const char *hint)
{
    return not_number(P, v, l) || adi_vec_not_scalar(P, v.node, l->first_line, l->first_column, hint);
}

/* 0 when v is a condition; else the error at l, and 1 */
static int not_condition(adi_pctx *P, adi_val v, const ADI_YYLTYPE *l)
{
    if (v.cond >= 0) return 0;
    if (adi_is_vec(v.node)) {
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
                   "a vector is not a condition: compare its elements, as in v[1] > 0");
        return 1;
    }
    adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
               "a number is not a condition: compare it, as in x != 0");
    return 1;
}

/* a comparison of two numbers: its outcome (adi_compare records the guard) */
#define CMP(res, code, A, B, la, lb, lop)                                      \
    do {                                                                       \
        if (not_scalar(P, A, la, "compare its elements, as in v[1] < w[1]") ||  \
            not_scalar(P, B, lb, "compare its elements, as in v[1] < w[1]")) YYABORT; \
        res = condition(adi_compare(P, code, (A).node, (B).node, (lop)->first_line, (lop)->first_column));        \
    } while (0)

/* an operation on two numbers (b.node -1 for one), elementwise when
 * either is a vector */
#define NUM2(res, code, A, B, la, lb, lop)                                     \
    do {                                                                       \
        if (not_number(P, A, la) || not_number(P, B, lb)) YYABORT;             \
        if (adi_is_vec((A).node) || adi_is_vec((B).node)) {                    \
            res = number(adi_vec_op(P, code, (A).node, (B).node,               \
                                    (lop)->first_line, (lop)->first_column));  \
            if ((res).node < 0) YYABORT;                                       \
        } else {                                                               \
            res = number(op(P, code, (A).node, (B).node, lop));                \
        }                                                                      \
    } while (0)

/* the vectors among the nargs arguments on top of P->args: any */
static int any_vector(const adi_pctx *P, size_t nargs)
{
    for (size_t i = P->nargs - nargs; i < P->nargs; i++)
        if (adi_is_vec(P->args[i])) return 1;
    return 0;
}

static void push_arg(adi_pctx *P, int32_t node)
{
    if (adi_grow((void **)&P->args, &P->argcap, P->nargs + 1, sizeof *P->args) < 0)
        longjmp(P->oom, 1);
    P->args[P->nargs++] = node;
}
}

%union {
    adi_val v;             /* a number (a node) or a condition (its outcome) */
    int32_t node;          /* a tape node (recording index) */
    size_t count;          /* arguments pushed on P->args */
    const adi_fninfo *fn;   /* a function's table entry */
    long ufn;              /* a user function (program.c) */
    int vfn;               /* a vector function (vector.c) */
    struct { int f; unsigned off, len; } red;   /* sum(i =, prod(i =: which, and i */
}

%token <node> NUM "number"
%token <node> VAR "name"
%token <fn>   FUNC "function"
%token <ufn>  UFUNC "user function"
%token <vfn>  VFUNC "vector function"
%token <red>  IRED "'sum(i ='"
%token IVAR "vector name"
%token BODY "expression"
%token DOTDOT "'..'"
%token IF "'if'" LE "'<='" GE "'>='" EQ "'=='" NE "'!='" AND "'&&'" OR "'||'"
%type  <v> expr
%type  <count> args

%left OR
%left AND
%left EQ NE
%left '<' '>' LE GE
%left '+' '-'
%left '*' '/'
%precedence UMINUS '!'
%right '^'

%%

input
    : %empty   { adi_perror(P, AD_E_SYNTAX, 1, 1, "empty expression"); YYABORT; }
    | expr     {
            if (P->want_cond && $1.cond < 0) {
                adi_perror(P, AD_E_SYNTAX, @1.first_line, @1.first_column,
                           "expected a condition, such as x > 0");
                YYABORT;
            }
            if (!P->want_cond && not_number(P, $1, &@1)) YYABORT;
            P->root = $1.node;
            P->truth = $1.cond;
        }
    ;

expr
    : expr '+' expr          { NUM2($$, AD_OP_ADD, $1, $3, &@1, &@3, &@2); }
    | expr '-' expr          { NUM2($$, AD_OP_SUB, $1, $3, &@1, &@3, &@2); }
    | expr '*' expr          { NUM2($$, AD_OP_MUL, $1, $3, &@1, &@3, &@2); }
    | expr '/' expr          { NUM2($$, AD_OP_DIV, $1, $3, &@1, &@3, &@2); }
    | expr '^' expr          { NUM2($$, AD_OP_POW, $1, $3, &@1, &@3, &@2); }
    | '-' expr %prec UMINUS  { NUM2($$, AD_OP_NEG, $2, number(-1), &@2, &@2, &@1); }
    | '+' expr %prec UMINUS  { if (not_number(P, $2, &@2)) YYABORT; $$ = $2; }
    | expr '<' expr          { CMP($$, AD_OP_LT, $1, $3, &@1, &@3, &@2); }
    | expr LE expr           { CMP($$, AD_OP_LE, $1, $3, &@1, &@3, &@2); }
    | expr '>' expr          { CMP($$, AD_OP_GT, $1, $3, &@1, &@3, &@2); }
    | expr GE expr           { CMP($$, AD_OP_GE, $1, $3, &@1, &@3, &@2); }
    | expr EQ expr           { CMP($$, AD_OP_EQ, $1, $3, &@1, &@3, &@2); }
    | expr NE expr           { CMP($$, AD_OP_NE, $1, $3, &@1, &@3, &@2); }
    | '!' expr               { if (not_condition(P, $2, &@2)) YYABORT; adi_memo_not(P); $$ = condition(!$2.cond); }
    | expr AND               { if (not_condition(P, $1, &@1)) YYABORT; adi_memo_bad(P); P->prog->skip += !$1.cond; }
      expr                   {
            P->prog->skip -= !$1.cond;
            if (not_condition(P, $4, &@4)) YYABORT;
            $$ = condition($1.cond && $4.cond);
        }
    | expr OR                { if (not_condition(P, $1, &@1)) YYABORT; adi_memo_bad(P); P->prog->skip += $1.cond; }
      expr                   {
            P->prog->skip -= $1.cond;
            if (not_condition(P, $4, &@4)) YYABORT;
            $$ = condition($1.cond || $4.cond);
        }
    | IF '(' expr ','        { if (not_condition(P, $3, &@3)) YYABORT; adi_memo_bad(P); P->prog->skip += !$3.cond; }
      expr ','               { P->prog->skip -= !$3.cond; P->prog->skip += $3.cond; if (not_number(P, $6, &@6)) YYABORT; }
      expr ')'               {
            P->prog->skip -= $3.cond;
            if (not_number(P, $9, &@9)) YYABORT;
            $$ = $3.cond ? $6 : $9;
        }
    | IF                     {
            adi_perror(P, AD_E_SYNTAX, @1.first_line, @1.first_column,
                       "'if' in an expression is if(condition, a, b)");
            YYABORT;
        }
    | '(' expr ')'           { $$ = $2; }
    | IVAR '[' expr ']'      {
            if (not_number(P, $3, &@3)) YYABORT;
            $$ = number(adi_vec_index(P, P->src + @1.off, @1.end - @1.off, $3.node, @1.first_line,
                                      @1.first_column, @3.first_line, @3.first_column));
            if ($$.node < 0) YYABORT;
        }
    | IVAR '[' expr DOTDOT expr ']' {
            if (not_number(P, $3, &@3) || not_number(P, $5, &@5)) YYABORT;
            $$ = number(adi_vec_slice(P, P->src + @1.off, @1.end - @1.off, $3.node, $5.node, @1.first_line,
                                      @1.first_column, @3.first_line, @3.first_column, @5.first_line,
                                      @5.first_column));
            if ($$.node < 0) YYABORT;
        }
    | '[' args ']'           {
            $$ = number(adi_vec_literal(P, $2, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | '[' ']'                { $$ = number(adi_vec_literal(P, 0, @1.first_line, @1.first_column)); }
    | VFUNC '(' args ')'     {
            $$ = number(adi_vec_fn_call(P, $1, $3, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | VFUNC '(' ')'          {
            $$ = number(adi_vec_fn_call(P, $1, 0, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | VFUNC                  {
            const char *name = adi_vec_fn_name($1);
            adi_perror(P, AD_E_NAME, @1.first_line, @1.first_column,
                      "'%s' is a function: call it as %s(...)", name, name);
            YYABORT;
        }
    | IRED expr DOTDOT expr ',' { adi_lex_body(scanner); }
      BODY ')'               {
            if (not_number(P, $2, &@2) || not_number(P, $4, &@4)) YYABORT;
            $$ = number(adi_vec_indexed(P, $1.f, $1.off, $1.len, $2.node, $4.node, @7.end,
                                        @1.first_line, @1.first_column, @2.first_line, @2.first_column,
                                        @4.first_line, @4.first_column));
            if ($$.node < 0) YYABORT;
        }
    | NUM                    { $$ = number($1); }
    | VAR                    { $$ = number($1); }
    | FUNC '(' args ')'      {
            if (any_vector(P, $3)) $$ = number(adi_vec_call(P, $1, $3, @1.first_line, @1.first_column));
            else $$ = number(adi_call(P, $1, $3, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | FUNC '(' ')'           {
            $$ = number(adi_call(P, $1, 0, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | FUNC                   {
            adi_perror(P, AD_E_NAME, @1.first_line, @1.first_column,
                      "'%s' is a function: call it as %s(...)", $1->name, $1->name);
            YYABORT;
        }
    | UFUNC '(' args ')'     {
            $$ = number(adi_inline_call(P, (size_t)$1, $3, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | UFUNC '(' ')'          {
            $$ = number(adi_inline_call(P, (size_t)$1, 0, @1.first_line, @1.first_column));
            if ($$.node < 0) YYABORT;
        }
    | UFUNC                  {
            char q[80];
            adi_perror(P, AD_E_NAME, @1.first_line, @1.first_column,
                      "'%s' is a function: call it as %s(...)",
                      adi_quote(q, sizeof q, P->src + @1.off, @1.end - @1.off),
                      adi_quote(q, sizeof q, P->src + @1.off, @1.end - @1.off));
            YYABORT;
        }
    | VAR '(' {
            char q[80];
            size_t len = @1.end - @1.off;
            const char *s = adi_suggest_function(P->src + @1.off, len);
            adi_quote(q, sizeof q, P->src + @1.off, len);
            if (s)
                adi_perror(P, AD_E_NAME, @1.first_line, @1.first_column,
                          "unknown function '%s' (did you mean '%s'?)", q, s);
            else
                adi_perror(P, AD_E_NAME, @1.first_line, @1.first_column,
                          "unknown function '%s'", q);
            YYABORT;
        }
    ;

args
    : expr                   { if (not_number(P, $1, &@1)) YYABORT; push_arg(P, $1.node); $$ = 1; }
    | args ',' expr          { if (not_number(P, $3, &@3)) YYABORT; push_arg(P, $3.node); $$ = $1 + 1; }
    ;

%%

static const char *describe(adi_pctx *P, yysymbol_kind_t k, const ADI_YYLTYPE *l, char *buf, size_t n)
{
    char q[80];
    switch (k) {
    case YYSYMBOL_YYEOF: return "end of input";
    case YYSYMBOL_NUM:
        snprintf(buf, n, "number '%s'", adi_quote(q, sizeof q, P->src + l->off, l->end - l->off));
        return buf;
    case YYSYMBOL_VAR:
        snprintf(buf, n, "name '%s'", adi_quote(q, sizeof q, P->src + l->off, l->end - l->off));
        return buf;
    case YYSYMBOL_IVAR:
        snprintf(buf, n, "name '%s'", adi_quote(q, sizeof q, P->src + l->off, l->end - l->off));
        return buf;
    case YYSYMBOL_UFUNC:
    case YYSYMBOL_VFUNC:
    case YYSYMBOL_FUNC:
        snprintf(buf, n, "function '%s'", adi_quote(q, sizeof q, P->src + l->off, l->end - l->off));
        return buf;
    default:
        snprintf(buf, n, "'%s'", adi_quote(q, sizeof q, P->src + l->off, l->end - l->off));
        return buf;
    }
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, adi_pctx *P)
{
    (void)scanner;
    if (P->failed) return 0;   /* the lexer has already said what is wrong */
    const ADI_YYLTYPE *l = yypcontext_location(ctx);
    yysymbol_kind_t k = yypcontext_token(ctx);
    yysymbol_kind_t exp[YYNTOKENS];
    int nexp = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
    int want_operand = 0, want_operator = 0;
    /* the punctuation that could come instead of an operator */
    const char *punct[3];
    int npunct = 0;
    for (int i = 0; i < nexp; i++) {
        if (exp[i] == YYSYMBOL_NUM) want_operand = 1;
        if (exp[i] == YYTRANSLATE('*')) want_operator = 1;
    }
    static const char marks[] = ",)]";
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < nexp; i++)
            if (exp[i] == YYTRANSLATE((unsigned char)marks[m])) {
                punct[npunct++] = m == 0 ? "','" : m == 1 ? "')'" : "']'";
                break;
            }
    char alt[40] = "";
    for (int i = 0; i < npunct; i++)
        snprintf(alt + strlen(alt), sizeof alt - strlen(alt), "%s%s", i == npunct - 1 ? " or " : ", ", punct[i]);
    char what[128];
    const char *d = describe(P, k, l, what, sizeof what);
    if (k == YYSYMBOL_YYEOF && P->nparens > 0) {
        adi_pos o = P->parens[P->nparens - 1];
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
                  "missing '%c' to close the '%c' at %d:%d", o.src == '[' ? ']' : ')', o.src == '[' ? '[' : '(',
                  o.line, o.col);
    } else if (want_operand) {
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
                  "unexpected %s; expected a number, a name or '('", d);
    } else if (want_operator) {
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column,
                  "unexpected %s; expected an operator%s", d, alt);
    } else {
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column, "unexpected %s", d);
    }
    return 0;
}

static void adi_yyerror(ADI_YYLTYPE *l, yyscan_t scanner, adi_pctx *P, const char *msg)
{
    (void)scanner;
    if (strcmp(msg, "memory exhausted") == 0)
        adi_perror(P, AD_E_IO, l->first_line, l->first_column,
                  "out of memory: expression nested too deeply for the parser's stack");
    else
        adi_perror(P, AD_E_SYNTAX, l->first_line, l->first_column, "%s", msg);
}
