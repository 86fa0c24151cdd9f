/* pm.h - what the postmortem's files share: allocation that stops on
 * exhaustion, interned strings, a small pool of worker threads, and the
 * progress line.
 *
 * The postmortem (`culprit prof`) reads a measurement directory, names
 * every sampled address (symbolize.c), merges the threads' trees into one
 * calling-context tree (merge.c) and writes the SQLite database
 * (database.c); prof.c drives it.  Unlike the collector, it may allocate
 * freely: running out of memory here ends the command with a message.
 */
#ifndef CULPRIT_PM_H
#define CULPRIT_PM_H

#include <stddef.h>
#include <stdint.h>

/* ---- memory (util.c) ---------------------------------------------------- */

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* asprintf that cannot fail. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *P (of *CAP elements of SIZE bytes) to hold at least NEED. */
void grow_array(void *p, size_t *cap, size_t need, size_t size);

/* ---- interned strings (strtab.c) ----------------------------------------- */

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

/* ---- parallel loops (util.c) ---------------------------------------------- */

/* Calls FN(ARG, i) for i in [0, N) on up to JOBS threads; returns when all
 * are done.  Items are handed out one at a time, in order. */
void parallel_for(int jobs, size_t n, void (*fn)(void *arg, size_t i), void *arg);
/* The number of online CPUs (at least 1). */
int cpu_count(void);

/* ---- progress (util.c) ------------------------------------------------------ */

/* A one-line progress report on standard error, shown only once the
 * command has run for more than a second and only on a terminal...
 * or always with CULPRIT_PROGRESS=1 (tests). */
void progress_start(const char *what);
void progress_update(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_end(void);

#endif
