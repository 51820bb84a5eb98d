/*
 * From boot.S to the program: the console, the program's stack canary,
 * main(), and QEMU's exit with main's verdict (0 = pass).
 */
#include "riscv.h"

void riscv_main(void)
{
    riscv_uart_init();
    riscv_context_reset();
    pr_riscv_exit(main());
}
