/* pool.h - a small thread pool that tells culprit about its workers and
 * tasks (include/culprit/culprit.h).  An example of the runtime API, kept
 * to one header so that programs (pool.c, culprit's tests) include it.
 *
 * N workers take tasks from a queue.  pool_spawn() records where the user
 * created the task (culprit_task_create) and the worker runs it through
 * culprit_task_run, so a task's samples appear under the code that
 * spawned it, whichever worker ran it.  A worker with nothing to do
 * declares itself idle, for the reason the pool was given: by default
 * because there is no parallel work, so serial code is to blame. */
#ifndef POOL_H
#define POOL_H

#include <culprit/culprit.h>
#include <pthread.h>

#define POOL_WORKERS 2
#define POOL_QUEUE 64

struct pool_task {
	void (*fn)(void *);
	void *arg;
	culprit_task *origin;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t more, done;
	struct pool_task queue[POOL_QUEUE];
	int head, tail, running, stop;
	enum culprit_wait waiting_means;
	pthread_t worker[POOL_WORKERS];
} pool;

static void *pool_worker(void *arg)
{
	(void)arg;
	culprit_worker_begin();
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (pool.head == pool.tail && !pool.stop) {
			culprit_worker_idle(pool.waiting_means);
			pthread_cond_wait(&pool.more, &pool.lock);
			culprit_worker_busy();
		}
		if (pool.head == pool.tail)
			break;
		struct pool_task t = pool.queue[pool.head++ % POOL_QUEUE];
		pool.running++;
		pthread_mutex_unlock(&pool.lock);
		culprit_task_run(t.origin, t.fn, t.arg);
		culprit_task_destroy(t.origin);
		pthread_mutex_lock(&pool.lock);
		pool.running--;
		pthread_cond_broadcast(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	culprit_worker_end();
	return NULL;
}

static void pool_start(void)
{
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.more, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.waiting_means = CULPRIT_WAIT_SERIAL;
	for (int i = 0; i < POOL_WORKERS; i++)
		pthread_create(&pool.worker[i], NULL, pool_worker, NULL);
}

/* Why workers that find no task wait, from now on.  Waiting workers wake
 * to declare it. */
static __attribute__((unused)) void pool_waiting_means(enum culprit_wait why)
{
	pthread_mutex_lock(&pool.lock);
	pool.waiting_means = why;
	pthread_cond_broadcast(&pool.more);
	pthread_mutex_unlock(&pool.lock);
}

/* Queues FN(ARG) as a task created here (by pool_spawn's caller). */
static __attribute__((noinline)) void pool_spawn(void (*fn)(void *), void *arg)
{
	culprit_task *origin = culprit_task_create(1);	/* skip pool_spawn itself */
	pthread_mutex_lock(&pool.lock);
	pool.queue[pool.tail++ % POOL_QUEUE] = (struct pool_task){ fn, arg, origin };
	pthread_cond_signal(&pool.more);
	pthread_mutex_unlock(&pool.lock);
}

/* Waits until every queued task has run. */
static void pool_wait(void)
{
	pthread_mutex_lock(&pool.lock);
	while (pool.head != pool.tail || pool.running)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
}

static void pool_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.stop = 1;
	pthread_cond_broadcast(&pool.more);
	pthread_mutex_unlock(&pool.lock);
	for (int i = 0; i < POOL_WORKERS; i++)
		pthread_join(pool.worker[i], NULL);
}

#endif
