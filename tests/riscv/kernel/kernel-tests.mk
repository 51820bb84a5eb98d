# Included by ports/riscv/Makefile: the kernel's test programs
# (tests/kernel/test_*.c, written for the host port) built for QEMU, each
# with the same harness (tests/kernel/harness.c) over a shim of the host
# port's API (host_shim.c). They run in trace mode: every test case prints
# its kernel trace over the UART, and tests/riscv/compare_kernel_tests.py
# compares it with the host's, ignoring times.
#
#   make -C ports/riscv ARCH=rv32 ktests   -> build/riscv/rv32/ktest/test_*.elf

KTEST_DIR := $(ROOT)/tests/riscv/kernel
KTEST_SRC := $(wildcard $(ROOT)/tests/kernel/test_*.c)
KTEST_IMAGES := $(patsubst $(ROOT)/tests/kernel/%.c,$(BUILD)/ktest/%.elf,$(KTEST_SRC))
KTEST_CFLAGS := $(CFLAGS) -DPRIORA_HARNESS_RISCV -I$(KTEST_DIR) -I$(ROOT)/tests/kernel
KTEST_SUPPORT := $(BUILD)/ktest/harness.o $(BUILD)/ktest/host_shim.o $(BUILD)/ktest/trace_dump.o

ktests: $(KTEST_IMAGES)

$(BUILD)/ktest/%.o: $(ROOT)/tests/kernel/%.c
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ktest/trace_dump.o: $(ROOT)/ports/host/trace_dump.c
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ktest/host_shim.o: $(KTEST_DIR)/host_shim.c
	@mkdir -p $(@D)
	$(CC) $(KTEST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ktest/%.elf: $(BUILD)/ktest/%.o $(KTEST_SUPPORT) $(LIB) $(HERE)/link.ld
	$(CC) $(LDFLAGS) -o $@ $< $(KTEST_SUPPORT) $(BUILD)/port/boot.o $(LIB) $(LIBGCC)
