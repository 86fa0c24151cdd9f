/* replay.c - runs the fuzz target of fuzz_mfile.c on files, without
 * libFuzzer: how `make check` replays the committed corpus
 * (tests/run-corpus.sh), and how a crashing input is reproduced in an
 * ordinary build.  Built with the tools' sanitizers in a sanitizer build.
 *
 * usage: replay FILE...
 * Prints "FILE: ok" for each file the target survived; a broken invariant
 * aborts (fuzz_mfile.c's CHECK).  Exit status 0, or 2 when a file cannot
 * be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FILE's bytes in a buffer of exactly its size (so that ASan sees reads
 * past the end), or NULL. */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc(n ? (size_t)n : 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: replay FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t size = 0;
		uint8_t *data = slurp(argv[i], &size);
		if (!data) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			status = 2;
			continue;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		printf("%s: ok\n", argv[i]);
	}
	return status;
}
