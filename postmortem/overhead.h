/* overhead.h - which sampled instructions are a parallel runtime's
 * overhead, decided after the run from debug information and rules.
 *
 * An instruction is overhead of type T when
 *   - the source file of its line (in the line table) carries a tag:
 *     "culprit:overhead/T" anywhere in the name (a runtime compiled with
 *     `#line 1 "culprit:overhead/scheduling"` around its scheduler), or a
 *     name ending in HPCToolkit's "lush:parallel-overhead" (T = parallel);
 *   - or, failing a tag, the first rule that matches it says so.
 *
 * A rule is one line "FIELD PATTERN TYPE": FIELD names what the glob
 * PATTERN (fnmatch) is matched against,
 *   procedure  the procedure of the sampled instruction (innermost,
 *              inlined or not);
 *   file       the source file of the sampled line;
 *   module     the module (ELF file path) that the instruction's code
 *              belongs to, after transparent modules (below);
 *   entry      the runtime's entry point: the outermost frame of the run
 *              of frames in that module, the function the caller called;
 * and TYPE is an overhead type (lower-case letters, digits, '-' and '_'),
 * "-" for "not overhead", or, with FIELD module only, "^": the module
 * works for its caller (libc, for one), so the caller's run of frames is
 * classified instead.  '#' starts a comment.
 *
 * Rules come from --overhead-rules files, then $XDG_CONFIG_HOME/culprit/
 * *.rules, then the built-in ones (ovh_builtin_rules); the first match
 * wins.
 */
#ifndef CULPRIT_OVERHEAD_H
#define CULPRIT_OVERHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ovh_field { OVH_PROCEDURE, OVH_FILE, OVH_MODULE, OVH_ENTRY };

struct ovh_rule {
	enum ovh_field field;
	char *pattern;
	char *type;		/* "-" not overhead, "^" transparent module */
	char *origin;		/* "FILE:LINE" or "built-in:LINE" */
};

struct ovh_rules {
	struct ovh_rule *rule;
	size_t n, cap;
};

extern const char ovh_builtin_rules[];
extern const char *const ovh_field_name[];

void ovh_rules_init(struct ovh_rules *r);
void ovh_rules_free(struct ovh_rules *r);
/* Adds the rules in TEXT, read from ORIGIN (a file name, or "built-in").
 * Returns 0, or -1 with one line in ERR naming ORIGIN:LINE, the problem
 * and the fix. */
int ovh_rules_parse(struct ovh_rules *r, const char *origin, const char *text, char *err,
		    size_t errlen);
/* Adds the rules of file PATH; -1 with the reason in ERR. */
int ovh_rules_load(struct ovh_rules *r, const char *path, char *err, size_t errlen);
/* Adds the *.rules files of $XDG_CONFIG_HOME/culprit (or ~/.config/culprit),
 * in name order; a missing directory is fine.  -1 with the reason in ERR. */
int ovh_rules_load_user(struct ovh_rules *r, char *err, size_t errlen);
/* Writes the rules, one per line, with their origins. */
void ovh_rules_print(const struct ovh_rules *r, FILE *out);

/* The overhead type a file name's tag gives, into TYPE (at least 64
 * bytes); 0 when the name has no tag. */
int ovh_file_tag(const char *file, char *type, size_t size);

/* What a sampled instruction looks like to the rules. */
struct ovh_subject {
	const char *procedure, *file;	/* of the instruction */
	const char *module, *entry;	/* of its run, after transparent modules */
};

/* What the first module rule that matches MODULE makes of it: none
 * matches (the program's own code, as far as the rules know), "^" (a
 * system library that works for its caller), or another type (a runtime's
 * module: libomp, libgomp, libtbb, and those users name). */
enum ovh_module_kind { OVH_MODULE_PROGRAM, OVH_MODULE_TRANSPARENT, OVH_MODULE_RUNTIME };
enum ovh_module_kind ovh_module_kind(const struct ovh_rules *r, const char *module);
/* Whether MODULE is transparent (a "^" rule matches it). */
int ovh_transparent(const struct ovh_rules *r, const char *module);
/* Whether a procedure named PROCEDURE, declared in FILE (either may be
 * NULL), is a runtime's code in the program's own module: FILE carries a
 * tag, or the first procedure or file rule that matches gives an overhead
 * type (not "-").  Module and entry rules are not asked. */
int ovh_runtime_code(const struct ovh_rules *r, const char *procedure, const char *file);
/* The first rule that matches S, ignoring transparency rules; NULL if none. */
const struct ovh_rule *ovh_match(const struct ovh_rules *r, const struct ovh_subject *s);

#endif
