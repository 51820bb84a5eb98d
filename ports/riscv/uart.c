/*
 * The console: QEMU virt's NS16550A UART at 0x10000000, polled (no
 * interrupts). With -nographic, QEMU connects it to its standard output.
 */
#include "riscv.h"

#define THR 0 /* transmit holding register (DLAB = 0) */
#define IER 1 /* interrupt enable */
#define FCR 2 /* FIFO control */
#define LCR 3 /* line control */
#define LSR 5 /* line status */
#define DLL 0 /* divisor latch, low and high (DLAB = 1) */
#define DLM 1
#define LCR_8N1 0x03
#define LCR_DLAB 0x80
#define LSR_THRE 0x20 /* the transmitter can take a byte */

static void reg_write(unsigned reg, uint8_t v) { mmio_write8(UART0_BASE + reg, v); }
static uint8_t reg_read(unsigned reg) { return mmio_read8(UART0_BASE + reg); }

/* QEMU ignores the baud rate, but a real 16550 needs it: 38400 baud from
 * the usual 1.8432 MHz clock, 8 data bits, no parity, one stop bit. */
void riscv_uart_init(void)
{
    reg_write(IER, 0x00);
    reg_write(LCR, LCR_DLAB);
    reg_write(DLL, 0x03);
    reg_write(DLM, 0x00);
    reg_write(LCR, LCR_8N1);
    reg_write(FCR, 0x07); /* enable and clear both FIFOs */
}

void pr_riscv_putc(char c)
{
    while ((reg_read(LSR) & LSR_THRE) == 0)
        ;
    reg_write(THR, (uint8_t)c);
}

void pr_riscv_puts(const char *s)
{
    while (*s != '\0')
        pr_riscv_putc(*s++);
}

void pr_riscv_put_dec(uint64_t v)
{
    char buf[21];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        pr_riscv_putc(buf[--n]);
}

void pr_riscv_put_hex(uint64_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--)
        pr_riscv_putc(hex[(v >> (4 * i)) & 0xF]);
}
