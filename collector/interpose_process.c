/* interpose_process.c - exec, spawn and exit.
 *
 * exec replaces the process image, so its measurements are written first;
 * if the exec fails, a new generation of the same pid starts.  The new
 * image must load us again even if the program cleared its environment,
 * so every exec and spawn gets LD_PRELOAD and our CULPRIT_* settings (as
 * they were when this image started) put back, plus
 * CULPRIT_IMAGE=pid:generation to number the next generation.
 * _exit() skips the destructors that would otherwise write the files.
 * main() is called through __libc_start_main() so that its return value,
 * which glibc passes to exit() internally where we cannot see it, is
 * recorded as the exit status.
 *
 * A vfork() child shares our memory: it must not write the parent's files
 * or stop its sampling, which culprit_process_is_self() guards.
 *
 * A set-user-ID or set-group-ID program that changes who runs it, or one
 * with file capabilities, runs in the loader's secure mode, which drops
 * LD_PRELOAD: it is not measured, and we say so as it is started.
 */
#define _GNU_SOURCE
#include "collector.h"
#include "real.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
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

/* Our settings as `culprit run` gave them, copied at start: the program
 * may clear its environment (clearenv, env -i) before it execs. */
static char saved_settings[8192];	/* "CULPRIT_X=..." strings, NUL-separated */
static size_t saved_len;

void culprit_env_save(void)
{
	saved_len = 0;
	for (size_t i = 0; environ && environ[i]; i++) {
		size_t n = strlen(environ[i]) + 1;
		if (!starts_with(environ[i], "CULPRIT_") || starts_with(environ[i], "CULPRIT_IMAGE=") ||
		    saved_len + n > sizeof saved_settings)
			continue;
		memcpy(saved_settings + saved_len, environ[i], n);
		saved_len += n;
	}
}

/* Bytes env_build() needs for ENVP. */
static size_t env_size(char *const envp[], const char **old_preload)
{
	size_t n = 0, bytes = 0;

	*old_preload = NULL;
	for (size_t i = 0; envp[i]; i++) {
		n++;
		if (starts_with(envp[i], "LD_PRELOAD="))
			*old_preload = envp[i] + 11;
	}
	for (size_t i = 0; i < saved_len; i += strlen(saved_settings + i) + 1)
		n++;
	bytes = saved_len + strlen(culprit_config.preload) +
		(*old_preload ? strlen(*old_preload) : 0) + 16 + 64;
	return (n + 4) * sizeof(char *) + bytes;
}

/* Lays out ENVP without our variables, then ours, in MEM. */
static char **env_build(char *const envp[], const char *old_preload, void *mem, size_t size)
{
	const char *preload = culprit_config.preload;
	char **env = mem;
	size_t n = 0, k = 0;

	for (size_t i = 0; envp[i]; i++)
		n++;
	for (size_t i = 0; i < saved_len; i += strlen(saved_settings + i) + 1)
		n++;
	char *str = (char *)(env + n + 4), *end = (char *)mem + size;
	for (size_t i = 0; envp[i]; i++)
		if (!starts_with(envp[i], "CULPRIT_") && !starts_with(envp[i], "LD_PRELOAD="))
			env[k++] = envp[i];
	for (size_t i = 0; i < saved_len; i += strlen(saved_settings + i) + 1)
		env[k++] = saved_settings + i;
	env[k++] = str;
	if (old_preload && has_preload(old_preload, preload))
		str += culprit_format(str, (size_t)(end - str), "LD_PRELOAD=%s", old_preload) + 1;
	else if (old_preload && old_preload[0])
		str += culprit_format(str, (size_t)(end - str), "LD_PRELOAD=%s:%s", preload,
				      old_preload) + 1;
	else
		str += culprit_format(str, (size_t)(end - str), "LD_PRELOAD=%s", preload) + 1;
	env[k++] = str;
	culprit_format(str, (size_t)(end - str), "CULPRIT_IMAGE=%d:%u", (int)culprit_getpid(),
		       culprit_process.generation);
	env[k] = NULL;
	return env;
}

#define ENV_ON_STACK 32768

/* ENVP plus our variables, in STACK when it fits (a vfork child shares our
 * memory, and its exec would leak a mapping), else in a private mapping
 * (no malloc: a child of fork() in a threaded program should not need it).
 * Returns ENVP itself when we are not active. */
static char *const *env_prepare(char *const envp[], struct env_copy *out, void *stack)
{
	const char *old_preload;

	out->env = NULL;
	out->map = NULL;
	if (!culprit_config.active || !culprit_config.preload[0])
		return envp;
	static char *const no_env[] = { NULL };
	if (!envp)
		envp = no_env;
	size_t size = env_size(envp, &old_preload);
	void *mem = stack;
	if (size > ENV_ON_STACK) {
		mem = out->map = culprit_map(size);
		out->size = size;
		if (!mem)
			return envp;
	}
	out->env = env_build(envp, old_preload, mem, size);
	return out->env;
}

static void env_release(struct env_copy *e)
{
	if (e->map)
		culprit_unmap(e->map, e->size);
}

/* Says so if PATH would run in the loader's secure mode, without us.
 * async-signal-safe (a vfork child may call it). */
static void warn_if_secure(const char *path)
{
	struct stat st;
	struct statvfs vfs;
	if (!culprit_config.active || !path || stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return;
	const char *why = NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		why = "set-user-ID";
	else if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
		why = "set-group-ID";
	else if (geteuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		why = "given file capabilities";
	if (why)
		culprit_log("%s is %s: the system drops LD_PRELOAD for it, so it runs "
			    "unmeasured", path, why);
}

/* FILE as execvp() finds it in PATH, into BUF (of SIZE); NULL if not
 * found.  async-signal-safe. */
static const char *search_path(const char *file, char *buf, size_t size)
{
	if (!file || strchr(file, '/'))
		return file;
	const char *dirs = NULL;
	for (char **e = environ; e && *e && !dirs; e++)
		if (starts_with(*e, "PATH="))
			dirs = *e + 5;
	if (!dirs)
		dirs = "/bin:/usr/bin";
	while (*dirs) {
		size_t len = strcspn(dirs, ":");
		if (len + strlen(file) + 2 <= size) {
			memcpy(buf, dirs, len);
			culprit_format(buf + len, size - len, "%s%s", len ? "/" : "", file);
			if (access(buf, X_OK) == 0)
				return buf;
		}
		dirs += len + (dirs[len] == ':');
	}
	return NULL;
}

/* Runs an exec call: finish the image, exec, start over if it failed. */
#define DO_EXEC(envp, call)                                                  \
	({                                                                   \
		struct env_copy e_;                                          \
		_Alignas(16) char stack_[ENV_ON_STACK];                      \
		char *const *env_ = env_prepare(envp, &e_, stack_);          \
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
	warn_if_secure(path);
	return DO_EXEC(envp, REAL(execve)(path, argv, env_));
}

EXPORT int execv(const char *path, char *const argv[])
{
	warn_if_secure(path);
	return DO_EXEC(environ, REAL(execve)(path, argv, env_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	char found[1024];
	warn_if_secure(search_path(file, found, sizeof found));
	return DO_EXEC(envp, REAL(execvpe)(file, argv, env_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	char found[1024];
	warn_if_secure(search_path(file, found, sizeof found));
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
	_Alignas(16) char stack[ENV_ON_STACK];
	char *const *env = env_prepare(envp, &e, stack);
	warn_if_secure(path);
	int rc = REAL(posix_spawn)(pid, path, fa, attr, argv, env);
	env_release(&e);
	return rc;
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct env_copy e;
	_Alignas(16) char stack[ENV_ON_STACK];
	char *const *env = env_prepare(envp, &e, stack);
	char found[1024];
	warn_if_secure(search_path(file, found, sizeof found));
	int rc = REAL(posix_spawnp)(pid, file, fa, attr, argv, env);
	env_release(&e);
	return rc;
}

typedef int (*main_fn)(int, char **, char **);
static main_fn program_main;

static int main_wrapper(int argc, char **argv, char **envp)
{
	int status = program_main(argc, argv, envp);
	culprit_process_note_exit(status);
	return status;
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
		    void *) = culprit_real("__libc_start_main");
	program_main = main;
	return real(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
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
