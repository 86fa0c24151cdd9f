/* tools.h - what culprit's commands share (the tools, not the collector):
 * messages and exit statuses, allocation that stops on exhaustion,
 * interned strings, a small pool of worker threads, the progress line and
 * the clock.
 *
 * The tools may allocate freely: running out of memory ends the command
 * with a message.  Everything here is for the `culprit` program; the
 * collector, which runs inside the profiled program, has its own. */
#ifndef CULPRIT_TOOLS_H
#define CULPRIT_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- messages and exit statuses (msg.c) ---------------------------------- */

/* Exit statuses of culprit's own commands (`culprit run` exits with the
 * program's status instead).
 *
 * One failure convention: a function that fails says why (msg_error,
 * once) and returns -1 (or NULL); its callers pass the -1 on, silently.
 * Only a command's cmd_NAME turns it into an exit status, EXIT_FAIL.
 * Parsing a command line returns EXIT_OK or EXIT_USAGE (msg_usage), and
 * --help sets a flag that cmd_NAME answers. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* "culprit: MESSAGE" on standard error; returns -1, so that a function
 * can `return msg_error(...)` (a command returns EXIT_FAIL after it).
 * One line that names the problem and, where there is one, the fix. */
int msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "culprit: warning: MESSAGE": something is missing or odd, the command
 * goes on. */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "culprit: MESSAGE" for what a command did or chose on the user's behalf
 * (what it wrote, which runtime it used): news, not a problem.  Commands
 * leave these out under --quiet. */
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "culprit COMMAND: MESSAGE" for a command line that cannot be run as
 * written; returns EXIT_USAGE. */
int msg_usage(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* With ON, msg_error, msg_warn, msg_note and msg_usage say nothing: the ranks of
 * `culprit prof --mpi` other than the first read what it reads, and
 * would say it again. */
void msg_silence(int on);
int msg_silenced(void);

/* ---- memory (alloc.c) ------------------------------------------------------ */

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* asprintf that cannot fail. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *P (of *CAP elements of SIZE bytes) to hold at least NEED. */
void grow_array(void *p, size_t *cap, size_t need, size_t size);
/* WORDS (N) joined by spaces, in a string the caller frees. */
char *join_words(char *const *words, size_t n);

/* ---- text from the measured program (safe_text.c) --------------------------- */

/* The bytes of the character at S to print as they are, or 0 when the
 * byte at S must show as '?': a control (C0, DEL, C1) or not UTF-8. */
size_t safe_char(const char *s);
/* Prints S to F with every unsafe byte as '?', at most WIDTH characters
 * (0: all). */
void fput_safe(FILE *f, const char *s, size_t width);
/* The same replacement, in place. */
void make_safe(char *s);
/* S as a JSON string to F, quotes included (NULL: ""): escaped, and valid
 * UTF-8 whatever the program named its functions (json.c). */
void json_string(FILE *f, const char *s);

/* ---- trees (nesting.c) ------------------------------------------------------ */

/* For the forest of N nodes PARENT gives (UINT32_MAX, or an index out of
 * range: a root), each of KEY[i] (below NKEYS; any other value: none),
 * sets NESTED[i] (N bytes) to 1 where an ancestor of node i has its key
 * (a recursion's inner frames), else 0: what "recursion counted once"
 * leaves out of inclusive sums. */
void mark_nested(size_t n, const uint32_t *parent, const uint32_t *key, uint32_t nkeys,
		 uint8_t *nested);

/* ---- numbers as short text (units.c) --------------------------------------- */

/* NS nanoseconds, short: "512ns", "1.2us", "31ms", "1.1s"; returns BUF. */
const char *short_duration(double ns, char *buf, size_t size);
/* The character that draws V among values up to TOP, one of eight levels:
 * block elements in a UTF-8 locale, else ASCII ("_.-=+*#@"); a space for
 * nothing (V <= 0). */
const char *level_char(double v, double top);

/* ---- interned strings (strtab.c) ------------------------------------------- */

/* A set of strings, each stored once and named by a small integer.  Id 0
 * is always the null string (no value). */
struct strtab;

struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
/* The id of S (NULL gives 0), adding it if new. */
uint32_t strtab_intern(struct strtab *t, const char *s);
/* The string of ID; NULL for 0.  Valid until the table is freed. */
const char *strtab_get(const struct strtab *t, uint32_t id);
uint32_t strtab_count(const struct strtab *t);

/* ---- parallel loops (parallel.c) ------------------------------------------- */

/* Calls FN(ARG, i) for i in [0, N) on up to JOBS threads; returns when all
 * are done.  Items are handed out one at a time, in order. */
void parallel_for(int jobs, size_t n, void (*fn)(void *arg, size_t i), void *arg);
/* The number of online CPUs (at least 1). */
int cpu_count(void);

/* ---- progress and time (progress.c) ----------------------------------------- */

/* A one-line progress report on standard error, shown only once the
 * command has run for more than a second and only on a terminal...
 * or always with CULPRIT_PROGRESS=1 (tests). */
void progress_start(const char *what);
void progress_update(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_end(void);

/* Seconds on the monotonic clock. */
double now_seconds(void);

#endif
