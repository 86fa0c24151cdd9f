/* launch.c - culprit run as one rank of an MPI launch.
 *
 * Under mpirun or srun, every rank runs a `culprit run` of its own with
 * the same -o.  The ranks share the measurement directory and one
 * experiment, and each keeps to its own files, whose names start with
 * "rRANK-" (the collector names them so, from the same variables).  The
 * directory is made by whichever rank comes first, which marks it as its
 * launch's with a hidden file named after the launch's job id; the
 * others, finding the directory there, wait for that mark.  A directory
 * without it, another run's, is refused as it always was.
 */
#define _GNU_SOURCE
#include "driver.h"
#include "mpi_rank.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where launchers say which launch (job) this is. */
static const char *const job_variables[] = {
	"PMIX_NAMESPACE",		/* Open MPI 4 and other PMIx launchers */
	"OMPI_MCA_ess_base_jobid",	/* Open MPI */
	"SLURM_JOB_ID",			/* srun, with SLURM_STEP_ID */
};

#define MARK_WAIT_MS 20000	/* how long a rank waits for the first one's mark */

int launch_detect(struct launch *l)
{
	memset(l, 0, sizeof *l);
	l->rank = mpi_rank_from_env(&l->rank_var);
	if (l->rank < 0)
		return 0;
	for (size_t i = 0; i < sizeof job_variables / sizeof *job_variables && !l->job[0]; i++) {
		const char *v = getenv(job_variables[i]);
		if (!v || !*v)
			continue;
		const char *step = strcmp(job_variables[i], "SLURM_JOB_ID") == 0
				   ? getenv("SLURM_STEP_ID") : NULL;
		size_t n = 0;
		/* Only characters a file name and an experiment name keep. */
		for (const char *c = v; *c && n + 1 < sizeof l->job - 12; c++)
			l->job[n++] = (strchr("/\\n\t ", *c) || (unsigned char)*c < 0x20) ? '_' : *c;
		if (step)
			snprintf(l->job + n, sizeof l->job - n, ".%.10s", step);
		else
			l->job[n] = 0;
	}
	return 1;
}

static char *mark_path(const struct launch *l, const char *dir)
{
	return xasprintf("%s/.mpi-launch-%s", dir, l->job);
}

/* Whether DIR, which exists, has MARK: made by another rank of this
 * launch, which marks it right after making it (on a shared file system,
 * the mark may take a while to show on this host).  A directory left
 * unchanged for a minute is another run's, without waiting. */
static int marked(const char *dir, const char *mark)
{
	struct stat st;
	if (access(mark, F_OK) == 0)
		return 1;
	if (lstat(dir, &st) == 0 && time(NULL) - st.st_mtime > 60)
		return 0;
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < MARK_WAIT_MS; i++) {
		nanosleep(&ms, NULL);
		if (access(mark, F_OK) == 0)
			return 1;
	}
	return 0;
}

int launch_make_output(const struct launch *l, const char *dir)
{
	if (!l->job[0]) {
		/* Without a job id, a directory made before cannot be told
		 * from another run's: the first rank's, and only it, goes. */
		if (mkdir(dir, 0700) == 0)
			return 0;
		if (errno == EEXIST)
			msg_error("output directory '%s' already exists, and MPI rank %d (%s) has no "
				  "job id to tell whether it is this launch's (PMIX_NAMESPACE, "
				  "SLURM_JOB_ID): give each rank an -o of its own, such as "
				  "-o m.$%s", dir, l->rank, l->rank_var, l->rank_var);
		else
			msg_error("cannot create output directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	char *mark = mark_path(l, dir);
	int rc = 0;
	if (mkdir(dir, 0700) == 0) {
		int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
		} else {
			msg_error("cannot mark output directory '%s' as this MPI launch's: %s", dir,
				  strerror(errno));
			rc = -1;
		}
	} else if (errno != EEXIST) {
		msg_error("cannot create output directory '%s': %s", dir, strerror(errno));
		rc = -1;
	} else if (!marked(dir, mark)) {
		msg_error("output directory '%s' already exists and is not this MPI launch's "
			  "(job %s); remove it or choose another", dir, l->job);
		rc = -1;
	}
	free(mark);
	return rc;
}

int launch_owns(const struct launch *l, const char *name)
{
	if (l->rank < 0)
		return 1;
	char prefix[32];
	int n = snprintf(prefix, sizeof prefix, "r%d-", l->rank);
	if (name[0] == '.')	/* spare files: ".r3-prog-..." */
		name++;
	return strncmp(name, prefix, (size_t)n) == 0;
}
