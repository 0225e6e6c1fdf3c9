/* SPDX-License-Identifier: MIT */
/* Unit tests for util/hashidx: an index by key into a caller's array finds what a scan from the front finds. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "util/hashidx.h"

struct keys {
	char (*k)[24];
	size_t n;
	const char *want;
};

static bool key_eq(const void *ctx, size_t pos)
{
	const struct keys *ks = ctx;

	return !strcmp(ks->k[pos], ks->want);
}

/* The first position holding key, by a scan (what the index replaces). */
static size_t scan(const struct keys *ks, const char *key)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->k[i], key))
			return i;
	return HASHIDX_NONE;
}

/* 20000 keys drawn from 7000, so that most come again: the index and a scan agree on each, as it grows. */
static void test_agrees_with_scan(void **state)
{
	static char k[20000][24];
	struct keys ks = { k, 0, NULL };
	struct hashidx x = { 0 };
	uint64_t s = 88172645463325252ULL;

	(void)state;
	assert_int_equal(hashidx_find(&x, 1, key_eq, &ks), HASHIDX_NONE);
	for (size_t i = 0; i < 20000; i++) {
		char key[24];
		size_t got, want;
		snprintf(key, sizeof(key), "job%llu", (unsigned long long)(test_xorshift(&s) % 7000));
		ks.want = key;
		want = scan(&ks, key);
		got = hashidx_find(&x, hash_bytes(HASH_SEED, key, strlen(key)), key_eq, &ks);
		if (got != want)
			fail_msg("key %s after %zu: got %zu, want %zu", key, i, got, want);
		/* every key is kept, a repeat too: the first must still win */
		memcpy(k[ks.n], key, sizeof(key));
		hashidx_add(&x, hash_bytes(HASH_SEED, key, strlen(key)), ks.n++);
	}
	assert_int_equal(x.n, 20000);
	assert_true(x.cap >= 2 * x.n);
	hashidx_release(&x);
	assert_int_equal(x.cap, 0);
	assert_int_equal(hashidx_find(&x, 1, key_eq, &ks), HASHIDX_NONE);
}

/* Every key under one hash (the worst case): still the first position that has the key. */
static void test_one_hash(void **state)
{
	static char k[300][24];
	struct keys ks = { k, 0, NULL };
	struct hashidx x = { 0 };

	(void)state;
	for (size_t i = 0; i < 300; i++) {
		snprintf(k[i], sizeof(k[i]), "k%zu", i % 100);
		hashidx_add(&x, 42, i);
		ks.n++;
	}
	for (size_t i = 0; i < 100; i++) {
		char key[24];
		snprintf(key, sizeof(key), "k%zu", i);
		ks.want = key;
		assert_int_equal(hashidx_find(&x, 42, key_eq, &ks), i);
		assert_int_equal(hashidx_find(&x, 43, key_eq, &ks), HASHIDX_NONE);
	}
	ks.want = "k100";
	assert_int_equal(hashidx_find(&x, 42, key_eq, &ks), HASHIDX_NONE);
	hashidx_release(&x);
}

static void test_hash_bytes(void **state)
{
	(void)state;
	/* FNV-1a's published values: the empty string and "a" */
	assert_true(hash_bytes(HASH_SEED, "", 0) == 0xcbf29ce484222325ULL);
	assert_true(hash_bytes(HASH_SEED, "a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(hash_u64(HASH_SEED, 1) != hash_u64(HASH_SEED, 256));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees_with_scan),
		cmocka_unit_test(test_one_hash),
		cmocka_unit_test(test_hash_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
