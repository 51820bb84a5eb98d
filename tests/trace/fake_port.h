/*
 * A fake port for tests/trace/test_trace_ring.c (named in PR_PORT_INLINE):
 * a clock whose stamp is 32 bits of a 64-bit counter in 100 ns counts, as
 * on RV32, so that the test can make the stamp wrap; port time that stands
 * still while `fake.running` is 0.
 */
#ifndef PRIORA_TEST_FAKE_PORT_H
#define PRIORA_TEST_FAKE_PORT_H

#include <stdint.h>

struct fake_clock {
    uint64_t counts;  /* the counter, 100 ns each */
    uint64_t epoch;   /* counts at port time 0 */
    uint64_t stopped; /* counts when port time stopped */
    int running;
};
extern struct fake_clock fake;

#define PR_PORT_INLINE_IRQ 1
static inline unsigned long pr_port_irq_save(void) { return 0; }
static inline void pr_port_irq_restore(unsigned long state) { (void)state; }

#define PR_PORT_INLINE_NOW 1
static inline uint64_t pr_port_now(void) { return ((fake.running ? fake.counts : fake.stopped) - fake.epoch) * 100; }

#define PR_PORT_INLINE_STAMP 1
typedef uint32_t pr_stamp_t;
#define PR_PORT_STAMP_FOLD_TICKS 256
static inline pr_stamp_t pr_port_stamp(void) { return (pr_stamp_t)fake.counts; }
static inline uint64_t pr_port_stamp_time(uint64_t stamps) { return stamps * 100; }
static inline uint64_t pr_port_now_and_stamp(pr_stamp_t *stamp)
{
    *stamp = pr_port_stamp();
    return pr_port_now();
}

#endif
