/* interpose_process.c - exec, spawn and exit.
 *
 * exec replaces the process image, so its measurements are written first;
 * if the exec fails, a new generation of the same pid starts.  The new
 * image must load us again even if the program cleared its environment,
 * so every exec and spawn gets LD_PRELOAD and our CULPRIT_* settings put
 * back, plus CULPRIT_IMAGE=pid:generation to number the next generation.
 * _exit() skips the destructors that would otherwise write the files.
 *
 * A vfork() child shares our memory: it must not write the parent's files
 * or stop its sampling, which culprit_process_is_self() guards.
 */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

struct env_copy {
	char **env;	/* NULL-terminated, in map */
	void *map;
	size_t size;
};

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Does the LD_PRELOAD value V already name our library? */
static int has_preload(const char *v, const char *lib)
{
	size_t n = strlen(lib);
	for (const char *p = v; (p = strstr(p, lib)); p += n)
		if ((p == v || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == 0 || p[n] == ':' || p[n] == ' '))
			return 1;
	return 0;
}

/* Builds ENVP plus our variables in one private mapping (no malloc: a
 * child of fork() in a threaded program should not need it). */
static int env_prepare(char *const envp[], struct env_copy *out)
{
	const char *preload = culprit_config.preload;
	const char *old_preload = NULL;
	size_t n = 0, bytes = 0;

	out->env = NULL;
	out->map = NULL;
	if (!culprit_config.active || !preload[0])
		return -1;
	if (!envp)
		envp = (char *const[]){ NULL };
	for (size_t i = 0; envp[i]; i++) {
		n++;
		bytes += strlen(envp[i]) + 1;
		if (starts_with(envp[i], "LD_PRELOAD="))
			old_preload = envp[i] + 11;
	}
	/* Ours come from our own environment, where `culprit run` put them. */
	for (size_t i = 0; environ && environ[i]; i++)
		if (starts_with(environ[i], "CULPRIT_")) {
			n++;
			bytes += strlen(environ[i]) + 1;
		}
	bytes += strlen(preload) + (old_preload ? strlen(old_preload) : 0) + 16 + 64;
	out->size = (n + 4) * sizeof(char *) + bytes;
	out->map = culprit_map(out->size);
	if (!out->map)
		return -1;
	char **env = out->map;
	char *str = (char *)(env + n + 4);
	size_t k = 0;

	for (size_t i = 0; envp[i]; i++)
		if (!starts_with(envp[i], "CULPRIT_") && !starts_with(envp[i], "LD_PRELOAD="))
			env[k++] = envp[i];
	for (size_t i = 0; environ && environ[i]; i++)
		if (starts_with(environ[i], "CULPRIT_") && !starts_with(environ[i], "CULPRIT_IMAGE=")) {
			env[k++] = str;
			str = stpcpy(str, environ[i]) + 1;
		}
	env[k++] = str;
	if (old_preload && has_preload(old_preload, preload))
		str += culprit_format(str, (size_t)-1 >> 1, "LD_PRELOAD=%s", old_preload) + 1;
	else if (old_preload && old_preload[0])
		str += culprit_format(str, (size_t)-1 >> 1, "LD_PRELOAD=%s:%s", preload,
				      old_preload) + 1;
	else
		str += culprit_format(str, (size_t)-1 >> 1, "LD_PRELOAD=%s", preload) + 1;
	env[k++] = str;
	culprit_format(str, 64, "CULPRIT_IMAGE=%d:%u", (int)culprit_getpid(),
		       culprit_process.generation);
	env[k] = NULL;
	out->env = env;
	return 0;
}

static void env_release(struct env_copy *e)
{
	if (e->map)
		culprit_unmap(e->map, e->size);
}

/* Runs an exec call: finish the image, exec, start over if it failed. */
#define DO_EXEC(envp, call)                                                  \
	({                                                                   \
		struct env_copy e_;                                          \
		char *const *env_ = env_prepare(envp, &e_) == 0 ? e_.env : (envp); \
		int self_ = culprit_config.active && culprit_process_is_self(); \
		if (self_)                                                   \
			culprit_process_before_exec();                       \
		int rc_ = call;                                              \
		int err_ = errno;                                            \
		if (self_)                                                   \
			culprit_process_after_failed_exec();                 \
		env_release(&e_);                                            \
		errno = err_;                                                \
		rc_;                                                         \
	})

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return DO_EXEC(envp, REAL(execve)(path, argv, env_));
}

EXPORT int execv(const char *path, char *const argv[])
{
	return DO_EXEC(environ, REAL(execve)(path, argv, env_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return DO_EXEC(envp, REAL(execvpe)(file, argv, env_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return DO_EXEC(environ, REAL(execvpe)(file, argv, env_));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return DO_EXEC(envp, REAL(fexecve)(fd, argv, env_));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	return DO_EXEC(envp, REAL(execveat)(dirfd, path, argv, env_, flags));
}

/* The execl family: gather the variadic arguments into an argv array. */
#define VARARGS_TO_ARGV(arg, argv, envp_out)                                \
	size_t argc_ = 1;                                                   \
	va_list ap_;                                                        \
	va_start(ap_, arg);                                                 \
	while (va_arg(ap_, const char *))                                   \
		argc_++;                                                    \
	va_end(ap_);                                                        \
	size_t size_ = (argc_ + 1) * sizeof(char *);                        \
	char **argv = culprit_map(size_);                                   \
	if (!argv) {                                                        \
		errno = ENOMEM;                                             \
		return -1;                                                  \
	}                                                                   \
	va_start(ap_, arg);                                                 \
	argv[0] = (char *)(arg);                                            \
	for (size_t i_ = 1; i_ <= argc_; i_++)                              \
		argv[i_] = va_arg(ap_, char *);                             \
	envp_out = va_arg(ap_, char *const *);                              \
	va_end(ap_)

EXPORT int execl(const char *path, const char *arg, ...)
{
	char *const *envp;
	VARARGS_TO_ARGV(arg, argv, envp);
	(void)envp;
	int rc = execv(path, argv);
	int e = errno;
	culprit_unmap(argv, size_);
	errno = e;
	return rc;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *const *envp;
	VARARGS_TO_ARGV(arg, argv, envp);
	(void)envp;
	int rc = execvp(file, argv);
	int e = errno;
	culprit_unmap(argv, size_);
	errno = e;
	return rc;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	VARARGS_TO_ARGV(arg, argv, envp);
	int rc = execve(path, argv, envp);
	int e = errno;
	culprit_unmap(argv, size_);
	errno = e;
	return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct env_copy e;
	char *const *env = env_prepare(envp, &e) == 0 ? e.env : envp;
	int rc = REAL(posix_spawn)(pid, path, fa, attr, argv, env);
	env_release(&e);
	return rc;
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct env_copy e;
	char *const *env = env_prepare(envp, &e) == 0 ? e.env : envp;
	int rc = REAL(posix_spawnp)(pid, file, fa, attr, argv, env);
	env_release(&e);
	return rc;
}

EXPORT void exit(int status)
{
	culprit_process_note_exit(status);
	REAL(exit)(status);
	__builtin_unreachable();
}

EXPORT void _exit(int status)
{
	culprit_process_finish(MFILE_END_EXIT_NOW, status & 0xff);
	REAL(_exit)(status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	culprit_process_finish(MFILE_END_EXIT_NOW, status & 0xff);
	REAL(_Exit)(status);
	__builtin_unreachable();
}
