/*
 * fuzz_kernel: the driver (docs/fuzzing.md).
 *
 *   fuzz_kernel [--seed S] [--calls N] [--seconds T] [--keep-going] [--history LINES] [--trace LINES]
 *               [--stats]
 *
 * Runs seeds S, S+1, ... (one kernel run each, of 2,000 to 6,000 calls, its
 * length drawn from the seed) until N calls in all were made or T seconds
 * of real time have passed, then prints one line: seeds, calls, failures.
 * The first failure ends the program with status 1 after its report, which
 * names the seed and the call count that replay it (`--seed K --calls M`
 * runs seed K alone, stopping after M calls). --keep-going runs each seed in
 * a child process instead, so that a failure or a crash is counted and the
 * next seed runs. --history sets how many of the last calls a report
 * prints (60; up to 4096), --trace how many of the kernel's last trace
 * records it adds (0). --stats prints, after the summary, how many times
 * each call returned each result.
 *
 * One run: the driver allocates semaphores and condition variables and
 * creates the tasks, then alternates pr_host_run_until slices of 1 to 15
 * ticks with a few calls of its own. The tasks run fz_worker_body; the tick
 * interrupt runs tick_hook, except in a fifth of the seeds (quiet ones,
 * fuzz.h), where the port skips the ticks that change nothing. Each slice is bounded in virtual time and the
 * seed in real time (SEED_SECONDS, then a hang is reported).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"

#define SEED_CALLS_MIN 2000
#define SEED_CALLS_MAX 6000
#define SEED_SECONDS 60
#define SLICE_TICKS_MAX 15

fz_run_t fz;

/* The whole invocation so far, for the summary line. */
static struct {
    uint64_t first_seed, seeds, calls;
    double start;
} total;

/* --stats: [op][result], in a shared mapping (the children of --keep-going count there too). */
static uint64_t (*stats)[FZ_STAT_RESULTS];

void fz_stats_count(fz_op_t op, int r)
{
    if (stats == NULL || op >= FZ_OPS)
        return;
    int column = r > 0 ? FZ_STAT_RESULTS - 1 : -r;
    if (column < FZ_STAT_RESULTS)
        stats[op][column]++;
}

static void print_stats(void)
{
    if (stats == NULL)
        return;
    for (int op = 0; op < FZ_OPS; op++) {
        uint64_t calls = 0;
        for (int k = 0; k < FZ_STAT_RESULTS; k++)
            calls += stats[op][k];
        if (calls == 0)
            continue;
        printf("  %-22s %10llu:", fz_op_name((fz_op_t)op), (unsigned long long)calls);
        for (int k = 0; k < FZ_STAT_RESULTS; k++)
            if (stats[op][k] != 0)
                printf(" %s %llu", k == FZ_STAT_RESULTS - 1 ? "positive" : pr_errname(-k),
                       (unsigned long long)stats[op][k]);
        printf("\n");
    }
}

/* A seed's length in calls, from the seed alone (not from --calls). */
static uint64_t seed_length(uint64_t seed)
{
    uint64_t z = seed * 0xD1B54A32D192ED03u + 0x8CB92BA72F3D8DD7u;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9u;
    return SEED_CALLS_MIN + (z ^ (z >> 32)) % (SEED_CALLS_MAX - SEED_CALLS_MIN + 1);
}

/* Every task: its next call from the generator, until the seed's calls are
 * all made; then it sleeps until the driver ends the run (a delay, not a
 * compute: a compute returns at once while an rcs abort is pending). */
void fz_worker_body(void *arg)
{
    (void)arg;
    pr_id_t self = pr_task_self();
    fz_task_adopt(self);
    fz_check(); /* it may have started inside its creator's call */
    for (;;) {
        fz_call_t c;
        if (fz.calls >= fz.budget) {
            pr_task_delay(1);
            continue;
        }
        memset(&c, 0, sizeof c);
        fz_gen_task(self, &c);
        if (c.op == FZ_EXIT) { /* the kernel releases what it holds, then it is done */
            c.no = ++fz.calls;
            c.who = self;
            fz_history_call(&c);
            fz.task[self].exiting = 1;
            return;
        }
        fz_do(&c);
    }
}

/* The tick interrupt, after the kernel's tick work: a check, then now and
 * then a call or two made from interrupt context. */
static void tick_hook(void *arg)
{
    (void)arg;
    fz.in_isr = 1;
    fz_services_tick(); /* the timers this tick expired */
    fz_check();
    int n = fz_chance(30) ? (fz_chance(30) ? 2 : 1) : 0;
    for (int i = 0; i < n && fz.calls < fz.budget; i++) {
        fz_call_t c;
        memset(&c, 0, sizeof c);
        fz_gen_isr(&c);
        fz_do(&c);
    }
    fz.in_isr = 0;
}

/* The trace as kept (pr_host_trace_keep): in order, with the numbers of
 * the whole trace (so rising, gaps where records were left out), and only
 * records of an event some filter of the seed kept, or LOST ones. */
static void check_kept_trace(void)
{
    size_t n;
    const pr_trace_record_t *r = pr_host_trace(&n);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && r[i].seq <= r[i - 1].seq)
            fz_fail("trace record %zu has seq %u after %u", i, r[i].seq, r[i - 1].seq);
        if (r[i].event != PR_EV_LOST && !(fz.kept >> r[i].event & 1))
            fz_fail("trace record %zu is a %s, which no filter of this seed kept (0x%llx)", i,
                    pr_trace_event_name(r[i].event), (unsigned long long)fz.kept);
    }
}

/* One seed: one kernel run of at most `budget` calls. */
static void run_seed(uint64_t seed, uint64_t budget)
{
    fz_services_release();
    memset(&fz, 0, sizeof fz);
    fz.seed = seed;
    fz.rng = seed ^ 0x5EED5EED5EED5EEDu;
    fz.budget = budget;
    fz_shadow_reset();
    fz_history_reset();
    fz.quiet = fz_chance(20); /* most of them with no quantum and no time-sharing band: ticks to skip */
    pr_kernel_config_t cfg = {.tick_hz = 1000,
                              .quantum = fz_chance(fz.quiet ? 10 : 30) ? (pr_ticks_t)fz_range(1, 3) : 0};
    /* half the seeds with a time-sharing band of 1 to 8 levels, short slices and decay periods */
    fz.ts_levels = fz_chance(fz.quiet ? 85 : 50) ? 0 : fz_range(1, 8);
    cfg.timeshare_levels = fz.ts_levels;
    cfg.timeshare_quantum = (pr_ticks_t)fz_range(0, 4);
    cfg.timeshare_decay = fz_chance(50) ? 0 : (pr_ticks_t)fz_range(1, 50);
    if (pr_host_init(&cfg) != PR_OK)
        fz_fail("pr_host_init failed");
    if (!fz.quiet)
        pr_host_set_tick_hook(tick_hook, NULL);
    fz.kept = fz_chance(80) ? PR_TRACE_ALL : fz_next(); /* a filtered trace, or the whole one */
    pr_host_trace_keep(fz.kept);
    fz.in_driver = 1;
    alarm(SEED_SECONDS);
    fz_check();
    fz_gen_setup();
    for (;;) { /* a slice always follows the last call: what it shows, a replay shows too */
        uint64_t until = pr_host_now() + (uint64_t)fz_range(1, SLICE_TICKS_MAX) * FZ_TICK_NS;
        if (fz_chance(30))
            until += (uint64_t)fz_below(FZ_TICK_NS);
        fz.in_driver = 0;
        pr_host_stop_t stop = pr_host_run_until(until);
        fz.in_driver = 1;
        uint64_t now = pr_host_now();
        if (now > until || (stop == PR_HOST_REACHED && now != until))
            fz_fail("pr_host_run_until(%llu) returned %d at %llu ns", (unsigned long long)until, (int)stop,
                    (unsigned long long)now);
        fz_check();
        if (stop == PR_HOST_QUIESCENT)
            fz_check_quiescent();
        if (fz.calls >= fz.budget)
            break;
        for (int i = fz_range(1, 3); i > 0 && fz.calls < fz.budget; i--) {
            fz_call_t c;
            memset(&c, 0, sizeof c);
            fz_gen_driver(&c);
            fz_do(&c);
        }
    }
    check_kept_trace();
    alarm(0);
    pr_host_set_tick_hook(NULL, NULL);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --keep-going: the seed in a child; 1 if it failed. */
static int run_seed_apart(uint64_t seed, uint64_t budget, uint64_t *calls)
{
    fflush(stdout);
    *calls = budget;
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        run_seed(seed, budget);
        *calls = fz.calls;
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status))
        printf("FAIL seed %llu: killed by signal %d\n", (unsigned long long)seed, WTERMSIG(status));
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

void fz_print_summary(uint64_t failures)
{
    uint64_t calls = total.calls + (failures != 0 && fz_calls_sink == NULL ? fz.calls : 0);
    printf("fuzz_kernel: %llu seeds (from %llu), %llu calls, %llu failures, %.1f s\n", (unsigned long long)total.seeds,
           (unsigned long long)total.first_seed, (unsigned long long)calls, (unsigned long long)failures,
           seconds_now() - total.start);
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--seed S] [--calls N] [--seconds T] [--keep-going] [--history LINES] [--trace LINES] "
                    "[--stats]\n", argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, calls = 0, done = 0, seeds = 0, failures = 0;
    double seconds = 0;
    int keep_going = 0, want_stats = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--keep-going") == 0)
            keep_going = 1;
        else if (strcmp(argv[i], "--stats") == 0)
            want_stats = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--calls") == 0)
            calls = strtoull(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
            seconds = strtod(argv[++i], NULL);
        else if (i + 1 < argc && strcmp(argv[i], "--history") == 0)
            fz_history_lines = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--trace") == 0)
            fz_trace_lines = atoi(argv[++i]);
        else
            usage(argv[0]);
    }
    if (calls == 0)
        calls = seconds > 0 ? UINT64_MAX : 100000;
    setvbuf(stdout, NULL, _IOLBF, 0);
    fz_report_init(argv[0]);
    uint64_t *sink = mmap(NULL, sizeof *sink, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sink == MAP_FAILED)
        sink = NULL;
    fz_calls_sink = keep_going ? sink : NULL;
    if (want_stats) {
        void *table = mmap(NULL, sizeof(uint64_t[FZ_OPS][FZ_STAT_RESULTS]), PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        stats = table != MAP_FAILED ? table : NULL;
    }

    total.start = seconds_now();
    total.first_seed = seed;
    while (done < calls && (seconds <= 0 || seconds_now() - total.start < seconds)) {
        total.seeds = seeds + 1; /* this one included, should it fail */
        total.calls = done;
        uint64_t budget = seed_length(seed);
        if (budget > calls - done)
            budget = calls - done;
        if (keep_going && sink != NULL) {
            failures += (uint64_t)run_seed_apart(seed, budget, sink);
            done += *sink;
        } else {
            run_seed(seed, budget);
            done += fz.calls;
        }
        seeds++;
        seed++;
    }
    total.seeds = seeds;
    total.calls = done;
    fz_print_summary(failures);
    print_stats();
    return failures == 0 ? 0 : 1;
}
