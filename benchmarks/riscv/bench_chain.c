/*
 * The inheritance chain walk against the chain's depth d = 1 .. 8.
 *
 * A chain of d holders: T0 (priority 1) holds M0 and waits on a counting
 * semaphore; T1 (priority 2) holds M1 and waits on M0; ...; T(d-1)
 * (priority d) holds M(d-1) and waits on M(d-2). Every mutex is pip, so
 * all of them already run at priority d. Then HIGH (priority d + 1) calls
 * pr_sem_down(M(d-1)): the cycle check follows the d holders, HIGH blocks,
 * and the walk raises each of the d holders to d + 1 (each moves in the
 * wait list it sits in). Nothing is left ready but the controller, so the
 * CPU switches to it.
 *
 * The controller (priority 0) creates the tasks in that order (each one
 * preempts it, takes its mutex and blocks), then ups Go, on which HIGH
 * waits. The window is from HIGH's counter read just before its down to
 * the controller's read when its up(Go) returns: the down, the walk, the
 * switch and the end of the up. Its growth with d is the cost of one link
 * of the chain (cycle check step + walk pass); bench.py fits the line.
 *
 *   chain depth=d instr=N     one line per depth
 */
#include "bench.h"

#define DEPTH_MAX 8

static pr_id_t mutexes[DEPTH_MAX], park, go;
static int depth;
static unsigned long a_read, window;

static void holder(void *arg)
{
    int i = (int)(uintptr_t)arg;
    bench_check(pr_sem_down(mutexes[i], PR_FOREVER), "take");
    if (i == 0)
        pr_sem_down(park, PR_FOREVER); /* never upped */
    else
        pr_sem_down(mutexes[i - 1], PR_FOREVER);
}

static void high(void *arg)
{
    (void)arg;
    const pr_id_t top = mutexes[depth - 1];
    pr_sem_down(go, PR_FOREVER);
    a_read = bench_instret();
    pr_sem_down(top, PR_FOREVER);
}

static void controller(void *arg)
{
    (void)arg;
    const pr_id_t g = go;
    for (int i = 0; i < depth; i++)
        bench_task("T", i + 1, holder, (void *)(uintptr_t)i);
    bench_task("HIGH", depth + 1, high, NULL); /* blocks on Go */
    bench_trace_discard();
    bench_tick_mask();
    pr_sem_up(g);
    unsigned long b = bench_instret();
    bench_tick_unmask();
    window = b - a_read - 1;
}

int main(void)
{
    bench_begin("bench_chain");
    for (depth = 1; depth <= DEPTH_MAX; depth++) {
        bench_init();
        for (int i = 0; i < depth; i++)
            mutexes[i] = bench_sem("M", PR_SEM_MUTEX | PR_SEM_PRIO, PR_PROTOCOL_PIP, 1);
        park = bench_sem("park", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
        go = bench_sem("go", PR_SEM_PRIO, PR_PROTOCOL_NONE, 0);
        bench_task("controller", 0, controller, NULL);
        bench_run();
        bench_line("chain");
        bench_kv("depth", (uint64_t)depth);
        bench_kv("instr", window);
        bench_eol();
    }
    bench_end("bench_chain");
    return 0;
}
