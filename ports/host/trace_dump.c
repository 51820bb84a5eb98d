/*
 * The trace dump of a host program (docs/trace-format.md, "The trace dump"):
 * every record since pr_host_init as the frame the RISC-V port prints over
 * its UART, with the attributes of the objects that exist now and the time
 * now. `priora trace FILE` reads it. It uses only the kernel's calls,
 * pr_host_trace and pr_host_now, and fprintf, so that the kernel's test
 * programs on QEMU (tests/riscv/kernel/host_shim.c) write their frames with
 * it too.
 */
#include <stdio.h>
#include "priora/host.h"

static const char *or_dash(const char *name) { return name != NULL && name[0] != '\0' ? name : "-"; }

/* The N lines of a dump: each object's name, and what the reader cannot learn
 * from the records (docs/trace-format.md, "The trace dump"). */
static void print_names(FILE *out)
{
    static const char *const protocols[] = {"none", "pip", "pcp", "ipcp", "npcs", "rcs"};
    for (int i = 0; i < PR_CONFIG_MAX_TASKS; i++) {
        pr_task_status_t st;
        if (pr_task_status(i, &st) == PR_OK)
            fprintf(out, "N T %d %s priority=%d period=%llu phase=%llu deadline=%llu\n", i, or_dash(st.name),
                    st.base_priority, (unsigned long long)st.period, (unsigned long long)st.phase,
                    (unsigned long long)st.deadline);
    }
    for (int i = 0; i < PR_CONFIG_MAX_SEMS; i++) {
        pr_sem_attr_t a;
        if (pr_sem_attr_get(i, &a) != PR_OK)
            continue;
        const char *kind = (a.flags & PR_SEM_MUTEX) ? "mutex" : (a.flags & PR_SEM_BINARY) ? "binary" : "counting";
        unsigned p = (unsigned)a.protocol;
        fprintf(out, "N S %d %s kind=%s protocol=%s ceiling=%d order=%s initial=%d max=%d\n", i, or_dash(a.name),
                kind, p < sizeof protocols / sizeof protocols[0] ? protocols[p] : "?", a.ceiling,
                (a.flags & PR_SEM_PRIO) ? "priority" : "fifo", a.value, a.max);
    }
}

void pr_host_trace_dump(FILE *out, const char *label)
{
    size_t n;
    const pr_trace_record_t *recs = pr_host_trace(&n);
    fprintf(out, "PRIORA-TRACE BEGIN %s tick_hz=%u\n", label, (unsigned)pr_tick_hz());
    for (size_t i = 0; i < n; i++) {
        const unsigned char *b = (const unsigned char *)&recs[i];
        fprintf(out, "T ");
        for (size_t k = 0; k < sizeof recs[i]; k++)
            fprintf(out, "%02x", b[k]);
        fprintf(out, "\n");
    }
    print_names(out);
    fprintf(out, "PRIORA-TRACE END %s records=%u lost=%u end_ns=%llu\n", label, (unsigned)n,
            (unsigned)pr_trace_lost(), (unsigned long long)pr_host_now());
}
