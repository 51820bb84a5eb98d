/*
 * The priority bitmap itself (kernel/core/prio_bitmap.h), in whichever form
 * this build has (one word up to 32 levels, two levels of words beyond),
 * against a plain array of flags: the members at 0, 31, 32 and the top
 * level, then 200,000 sets and clears (a member's by prio_bitmap_remove)
 * drawn by a fixed generator, the highest member and the highest below
 * every level checked after each.
 * CMake builds it with the default 32 levels and with the lab's 256.
 */
#include <stdio.h>
#include <string.h>
#include "../../kernel/core/prio_bitmap.h"

#define LEVELS PR_CONFIG_PRIORITIES

static int failed;
static unsigned char model[LEVELS];

#define CHECK_EQ(actual, expected)                                                                 \
    do {                                                                                           \
        long a_ = (long)(actual), e_ = (long)(expected);                                           \
        if (a_ != e_ && failed++ < 10)                                                             \
            fprintf(stderr, "%s:%d: %s is %ld, expected %ld\n", __FILE__, __LINE__, #actual, a_, e_); \
    } while (0)

static int model_highest_below(int p)
{
    for (int q = p - 1; q >= 0; q--)
        if (model[q])
            return q;
    return -1;
}

static void check_against_model(const pr_prio_bitmap_t *b)
{
    int top = model_highest_below(LEVELS);
    CHECK_EQ(prio_bitmap_empty(b), top < 0);
    if (top >= 0)
        CHECK_EQ(prio_bitmap_highest(b), top);
    for (int p = 0; p < LEVELS; p++) {
        CHECK_EQ(prio_bitmap_test(b, p), model[p]);
        CHECK_EQ(prio_bitmap_highest_below(b, p), model_highest_below(p));
    }
    CHECK_EQ(prio_bitmap_consistent(b), 1);
}

static void set(pr_prio_bitmap_t *b, int p)
{
    prio_bitmap_set(b, p);
    model[p] = 1;
}

/* A member by prio_bitmap_remove (its contract), any level else. */
static void clear(pr_prio_bitmap_t *b, int p)
{
    if (model[p])
        prio_bitmap_remove(b, p);
    else
        prio_bitmap_clear(b, p);
    model[p] = 0;
}

/* The levels at the edges of the words, set and cleared one by one: the
 * highest member is each in turn. */
static void edges(void)
{
    pr_prio_bitmap_t b;
    prio_bitmap_init(&b);
    memset(model, 0, sizeof model);
    check_against_model(&b);
    const int levels[] = {0, 31, 32, LEVELS - 1};
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
        if (levels[i] >= LEVELS)
            continue;
        set(&b, levels[i]);
        CHECK_EQ(prio_bitmap_highest(&b), levels[i]);
        check_against_model(&b);
    }
    for (size_t i = sizeof levels / sizeof *levels; i-- > 0;) {
        if (levels[i] >= LEVELS)
            continue;
        clear(&b, levels[i]);
        check_against_model(&b);
    }
    CHECK_EQ(prio_bitmap_empty(&b), 1);
}

/* xorshift32: the same draws on every run. */
static uint32_t draw(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static void random_sets_and_clears(void)
{
    pr_prio_bitmap_t b;
    prio_bitmap_init(&b);
    memset(model, 0, sizeof model);
    uint32_t state = 2463534242u;
    for (int step = 0; step < 200000; step++) {
        int p = (int)(draw(&state) % LEVELS);
        /* mostly a few levels set at a time, now and then many */
        if (model[p] || (draw(&state) % 4 == 0 && step % 5000 > 2500))
            clear(&b, p);
        else
            set(&b, p);
        if (step % 97 == 0)
            check_against_model(&b);
        else if (model_highest_below(LEVELS) >= 0)
            CHECK_EQ(prio_bitmap_highest(&b), model_highest_below(LEVELS));
    }
    check_against_model(&b);
}

int main(void)
{
    edges();
    random_sets_and_clears();
    printf("prio_bitmap (%d levels, %s): %s\n", LEVELS, PR_PRIO_TWO_LEVEL ? "two levels of words" : "one word",
           failed ? "FAILED" : "ok");
    return failed != 0;
}
