/* logical.c - the names of logical frames (see logical.h).
 *
 * A thread's file names the procedures whose frames its plugin made
 * (LNAM): namespace, ident, the key's line bits, name, file, first line.
 * The same procedure is usually named by many threads; it is kept once,
 * in a table with a hash index by (namespace, ident).  Two entries
 * with one key but other names would be two procedures whose idents
 * collide (a 38-bit hash in the CPython plugin): the first is kept. */
#define _GNU_SOURCE
#include "logical.h"
#include "experiment.h"
#include "hash.h"
#include "hindex.h"
#include "merge.h"
#include "mfile_read.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(uint32_t ns, uint64_t ident)
{
	return hash_mix(ident ^ (uint64_t)ns << 56);
}

static void insert(struct ctree *t, const struct logical_name *l)
{
	struct hindex_pos pos;
	for (uint32_t i = hindex_find(&t->lname_index, key_hash(l->ns, l->ident), &pos);
	     i != HINDEX_NONE; i = hindex_next(&t->lname_index, &pos))
		if (t->lname[i].ns == l->ns && t->lname[i].ident == l->ident)
			return;
	grow_array(&t->lname, &t->caplname, t->nlname + 1, sizeof *t->lname);
	t->lname[t->nlname] = *l;
	hindex_add(&t->lname_index, &pos, (uint32_t)t->nlname++);
}

/* Adds a name (the first of its key stays); widths of line bits past the
 * format's are none of ours. */
static void add_name(struct ctree *t, uint32_t ns, uint32_t line_bits, uint64_t ident,
		     uint32_t first_line, const char *name, const char *file)
{
	struct logical_name l = {
		ns, line_bits, ident, strtab_intern(t->str, name), strtab_intern(t->str, file),
		first_line,
	};
	if (line_bits > MFILE_LNAM_LINE_BITS_MAX)
		return;
	t->lname_bits |= 1ull << line_bits;
	insert(t, &l);
}

void logical_names_build(struct ctree *t, const struct experiment *e)
{
	size_t total = 0;
	for (size_t i = 0; i < e->nthread; i++)
		total += e->thread[i]->t->nlnames;
	if (!total)
		return;
	hindex_reserve(&t->lname_index, total);
	for (size_t i = 0; i < e->nthread; i++) {
		const struct mfile_thread *mt = e->thread[i]->t;
		for (uint32_t k = 0; k < mt->nlnames; k++) {
			const struct mfile_lname *m = &mt->lnames[k];
			add_name(t, m->ns, m->line_bits, m->ident, m->first_line,
				 m->name[0] ? m->name : "<unnamed>", m->file);
		}
	}
}

void logical_names_replace(struct ctree *t, const struct logical_name_text *names, size_t n)
{
	logical_names_free(t);
	t->lname_bits = 0;
	if (!n)
		return;
	hindex_reserve(&t->lname_index, n);
	for (size_t i = 0; i < n; i++)
		add_name(t, names[i].ns, names[i].line_bits, names[i].ident, names[i].first_line,
			 names[i].name, names[i].file);
}

void logical_names_free(struct ctree *t)
{
	free(t->lname);
	t->lname = NULL;
	t->nlname = t->caplname = 0;
	hindex_free(&t->lname_index);
}

const struct logical_name *logical_name_find(const struct ctree *t, uint32_t ns, uint64_t key,
					     uint32_t *line)
{
	/* Try each width of line bits in use: one, in practice. */
	for (unsigned bits = 0; bits <= MFILE_LNAM_LINE_BITS_MAX; bits++) {
		if (!(t->lname_bits & (1ull << bits)))
			continue;
		uint64_t ident = key >> bits;
		struct hindex_pos pos;
		for (uint32_t j = hindex_find(&t->lname_index, key_hash(ns, ident), &pos);
		     j != HINDEX_NONE; j = hindex_next(&t->lname_index, &pos))
			if (t->lname[j].ns == ns && t->lname[j].ident == ident &&
			    t->lname[j].line_bits == bits) {
				*line = (uint32_t)(key & ((1ull << bits) - 1));
				return &t->lname[j];
			}
	}
	return NULL;
}
