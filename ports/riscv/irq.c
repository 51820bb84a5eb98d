/*
 * Interrupt masking (port.h): the functions are inline in port_inline.h,
 * which explains them; these declarations make this file hold their
 * external definitions (C99 inline), for code that calls them by address or
 * is compiled without optimization.
 */
#include "riscv.h"

extern pr_irq_state_t pr_port_irq_save(void);
extern void pr_port_irq_restore(pr_irq_state_t state);
