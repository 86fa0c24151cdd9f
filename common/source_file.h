/* source_file.h - what a source file's name says about the code in it,
 * for the readers that pick the frames a user should look at (the
 * diagnoses, the scaling report): a function the compiler inlined from a
 * header (an accessor, a template, a helper used everywhere) is its
 * caller's business; one inlined from a source file is a function of the
 * program like any other. */
#ifndef CULPRIT_SOURCE_FILE_H
#define CULPRIT_SOURCE_FILE_H

#include <string.h>

/* Whether PATH is a header: ".h", ".hpp" and their kin, or no suffix at
 * all (C++'s standard headers: "vector"). */
static inline int source_file_is_header(const char *path)
{
	static const char *const suffix[] = { ".h", ".hh", ".hpp", ".hxx", ".h++", ".inl",
					      ".tcc", ".ipp" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot)
		return 1;
	for (size_t k = 0; k < sizeof suffix / sizeof *suffix; k++)
		if (strcmp(dot, suffix[k]) == 0)
			return 1;
	return 0;
}

#endif
