/* threads.c: three named threads, each in its own function, and main
 * working beside them (about half a second in all). The names (comm
 * "alpha", "beta", "gamma") are set by each thread first thing. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

static volatile unsigned long sink;

static void set_name(const char *name)
{
#if defined(__linux__)
	pthread_setname_np(pthread_self(), name);
#else
	(void)name;
#endif
}

NOINLINE unsigned long alpha_sum(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

NOINLINE unsigned long beta_collatz(unsigned long n)
{
	unsigned long steps = 0;
	for (unsigned long i = 1; i < n; i++)
		for (unsigned long x = i; x != 1; steps++)
			x = x & 1 ? 3 * x + 1 : x / 2;
	return steps;
}

NOINLINE double gamma_series(unsigned long n)
{
	double s = 0;
	for (unsigned long i = 1; i < n; i++)
		s += (i & 1 ? 1.0 : -1.0) / (double)(2 * i - 1);
	return s;
}

NOINLINE unsigned long main_hash(unsigned long n)
{
	unsigned long h = 5381;
	for (unsigned long i = 0; i < n; i++)
		h = h * 33 + (i & 0xff);
	return h;
}

static void *alpha_thread(void *arg)
{
	(void)arg;
	set_name("alpha");
	sink = alpha_sum(150000000);
	return NULL;
}

static void *beta_thread(void *arg)
{
	(void)arg;
	set_name("beta");
	sink = beta_collatz(1000000);
	return NULL;
}

static void *gamma_thread(void *arg)
{
	(void)arg;
	set_name("gamma");
	sink = (unsigned long)(gamma_series(150000000) * 1000);
	return NULL;
}

int main(void)
{
	void *(*fn[3])(void *) = { alpha_thread, beta_thread, gamma_thread };
	pthread_t t[3];
	int err;

	for (int i = 0; i < 3; i++)
		if ((err = pthread_create(&t[i], NULL, fn[i], NULL)) != 0) {
			fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
			return 1;
		}
	sink = main_hash(200000000);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
