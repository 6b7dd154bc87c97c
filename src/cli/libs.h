/* libs.h - libraries of definitions: --lib FILE before every -e, -f and
 * --expect (a prelude of their statements), and in a session the
 * libraries, :load FILE and the start-up file run as statements. */
#ifndef CLI_LIBS_H
#define CLI_LIBS_H

#include "adcalc.h"
#include "options.h"

/* Joins o->pre's libraries into its prelude and points every source of o
 * (-e, -f, --expect) at it; AD_E_NONE, or AD_E_IO when out of memory. */
ad_errclass cli_prelude_build(cli_options *o, ad_diag *d);
void cli_prelude_free(cli_prelude *p);

/* The library text[0..len) holds statements a library may hold
 * (definitions, assignments, control flow): AD_E_NONE, or AD_E_SYNTAX at
 * the first expression statement (whose value nothing would use). */
ad_errclass cli_lib_statements(const char *text, size_t len, ad_diag *d);

/* Checks the libraries of o once, before any expression is recorded after
 * them: their statements (cli_lib_statements) and their recording.  On
 * failure *at is the source d's position is in. */
ad_errclass cli_prelude_check(const cli_options *o, const cli_source **at, ad_diag *d);

/* src[0..len) after the prelude p, as one text (*n bytes, malloc'd); NULL
 * when out of memory */
char *cli_prelude_join(const cli_prelude *p, const char *src, size_t len, size_t *n);

/* The source and line a diagnostic at line `line` of s means: a library
 * of s's prelude, or s itself with the prelude's lines taken off. */
const cli_source *cli_prelude_locate(const cli_source *s, int line, int *at_line);

#endif
