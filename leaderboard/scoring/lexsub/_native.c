/* LS07/CoInCo's hot loops at C speed, each computing exactly what the Python definition
 * computes (the same floating-point operations in the same order):
 * - a usual RANKED file read as a whole (ranked.py parse_ranked), its pool check
 *   (validation.py _pool_counts) and GAP (gap.py gap_numerator);
 * - score.pl's best/oot tallies of .best/.oot lines (scorepl.py score_columns), its count of
 *   .oot lines with duplicates (repeats.py oot_repeats), and Jabbari et al.'s per-instance
 *   values (jabbari_rows.py jabbari_values).
 * A function returns None (or False) where its input is not of the shape it handles (a score
 * Python 2 and 3 read differently, a repeated key, a NaN score, text that is not latin-1...):
 * the caller then takes the Python path, which is the definition. See native.py. */

#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE  /* memmem */
#include <Python.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

/* Python 2's blanks (C isspace), what the key is stripped of. */
static int is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Blanks both Pythons strip around a score that follows the field's last space. */
static int is_score_blank(unsigned char c) {
    return c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The length of a decimal number at s (at most n bytes): [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?,
 * which Python 2's and Python 3's float read alike; 0 where there is none. */
static Py_ssize_t number_length(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && is_digit(s[i])) { i++; digits++; }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i])) { i++; digits++; }
    }
    if (digits == 0) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        Py_ssize_t j = i + 1, exp_digits = 0;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        while (j < n && is_digit(s[j])) { j++; exp_digits++; }
        if (exp_digits == 0) return 0;
        i = j;
    }
    return i;
}

/* A decimal number of at most 19 significant digits and a power of ten within 10^27 read in
 * one rounding: the significand w and 10^|q| are exact in x87's 64-bit mantissa, so w * 10^q
 * (or w / 10^-q) is rounded once to 64 bits; rounding that to a double gives the correctly
 * rounded double (what float() gives) unless the 64-bit result is exactly halfway between two
 * doubles, or outside the normal range: then 1, and the caller asks PyOS_string_to_double.
 * Python's own reading takes ~380 ns on a 17-digit score, this one ~20 ns. */
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
#define FAST_DECIMAL 1
static const long double POW10[28] = {
    1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L,
    1e27L};

static int fast_decimal(const unsigned char *s, Py_ssize_t n, double *out) {
    Py_ssize_t i = 0;
    unsigned long long w = 0;
    int negative = 0, significant = 0, seen_point = 0;
    long q = 0, exponent = 0;
    long double r;
    union { long double value; struct { unsigned long long mantissa; unsigned short top; } p; } bits;
    if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
    for (; i < n; i++) {
        if (s[i] == '.') { seen_point = 1; continue; }
        if (!is_digit(s[i])) break;
        if (seen_point) q--;
        if (w == 0 && s[i] == '0') continue;  /* a leading zero */
        if (++significant > 19) return 1;
        w = w * 10 + (s[i] - '0');
    }
    if (i < n) {  /* the exponent (number_length checked its shape) */
        int exp_negative = 0;
        i++;
        if (s[i] == '+' || s[i] == '-') exp_negative = s[i++] == '-';
        for (; i < n; i++) {
            if (exponent > 100000) return 1;
            exponent = exponent * 10 + (s[i] - '0');
        }
        q += exp_negative ? -exponent : exponent;
    }
    if (w == 0) { *out = negative ? -0.0 : 0.0; return 0; }
    if (q > 27 || q < -27) return 1;
    r = q >= 0 ? (long double)w * POW10[q] : (long double)w / POW10[-q];
    if (r < (long double)DBL_MIN * 4 || r > (long double)DBL_MAX / 4) return 1;
    bits.value = r;
    if ((bits.p.mantissa & 0x7FF) == 0x400) return 1;  /* halfway between two doubles */
    *out = negative ? -(double)r : (double)r;
    return 0;
}
#endif

/* The score of s[0:n] (what follows a field's last space), read by PyOS_string_to_double as
 * float() reads it; -1 where it is not blanks, a decimal number and blanks. */
static int read_score(const unsigned char *s, Py_ssize_t n, double *out) {
    char small[64], *buf = small;
    Py_ssize_t start = 0, end = n, len;
    while (start < end && is_score_blank(s[start])) start++;
    while (end > start && is_score_blank(s[end - 1])) end--;
    len = end - start;
    if (len == 0 || number_length(s + start, len) != len) return -1;
#ifdef FAST_DECIMAL
    if (fast_decimal(s + start, len, out) == 0) return 0;
#endif
    if (len >= (Py_ssize_t)sizeof(small) && (buf = PyMem_Malloc(len + 1)) == NULL) return -1;
    memcpy(buf, s + start, len);
    buf[len] = '\0';
    *out = PyOS_string_to_double(buf, NULL, NULL);
    if (buf != small) PyMem_Free(buf);
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return 0;
}

/* A file's candidate strings, one str object per distinct spelling: the instances of a
 * lemma.pos share their pool, so each string is made once rather than once per line (and its
 * hash, computed once, serves every later lookup of it). */
typedef struct { const unsigned char *text; Py_ssize_t len; size_t hash; PyObject *str; } Slot;
typedef struct { Slot *slots; size_t mask, used; } Strings;

/* bytes' own hash (SipHash with the process's random key): a file cannot be written to make
 * its candidates collide in the table. */
static size_t hash_bytes(const unsigned char *s, Py_ssize_t n) {
    return (size_t)_Py_HashBytes(s, n);
}

static int strings_grow(Strings *t) {
    size_t size = t->slots ? 2 * (t->mask + 1) : 1024, i;
    Slot *slots = PyMem_Calloc(size, sizeof(Slot));
    if (slots == NULL) { PyErr_NoMemory(); return -1; }
    for (i = 0; t->slots && i <= t->mask; i++) {
        size_t j = t->slots[i].hash & (size - 1);
        if (t->slots[i].str == NULL) continue;
        while (slots[j].str != NULL) j = (j + 1) & (size - 1);
        slots[j] = t->slots[i];
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 0;
}

/* A new reference to the str of s[0:n] (latin-1). */
static PyObject *strings_get(Strings *t, const unsigned char *s, Py_ssize_t n) {
    size_t h, j;
    if ((t->used + 1) * 2 > (t->slots ? t->mask + 1 : 0) && strings_grow(t) < 0) return NULL;
    h = hash_bytes(s, n);
    for (j = h & t->mask; t->slots[j].str != NULL; j = (j + 1) & t->mask) {
        Slot *slot = &t->slots[j];
        if (slot->hash == h && slot->len == n && memcmp(slot->text, s, n) == 0)
            return Py_NewRef(slot->str);
    }
    PyObject *str = PyUnicode_DecodeLatin1((const char *)s, n, NULL);
    if (str == NULL) return NULL;
    t->slots[j] = (Slot){s, n, h, Py_NewRef(str)};
    t->used++;
    return str;
}

static void strings_free(Strings *t) {
    for (size_t i = 0; t->slots && i <= t->mask; i++) Py_XDECREF(t->slots[i].str);
    PyMem_Free(t->slots);
}

/* One line's fields (s[0:n], after the key's tab) as a list of (candidate, score), appended
 * to ``out``; 1 where the line is not of the usual shape, -1 on a Python error. */
static int read_fields(const unsigned char *s, Py_ssize_t n, Py_ssize_t max_entries,
                       Strings *strings, PyObject *out) {
    Py_ssize_t start = 0, count = 0;
    while (start <= n) {
        const unsigned char *tab = memchr(s + start, '\t', n - start);
        Py_ssize_t end = tab ? (Py_ssize_t)(tab - s) : n, space = end - 1;
        double score;
        PyObject *cand, *value, *pair;
        while (space >= start && s[space] != ' ') space--;
        /* an empty field, no space, a score both Pythons do not read alike: the line path */
        if (end == start || space < start || ++count > max_entries ||
            read_score(s + space + 1, end - space - 1, &score) < 0)
            return 1;
        pair = PyTuple_New(2);
        if (pair == NULL) return -1;
        cand = strings_get(strings, s + start, space - start);
        value = cand == NULL ? NULL : PyFloat_FromDouble(score);
        if (value == NULL) { Py_XDECREF(cand); Py_DECREF(pair); return -1; }
        PyTuple_SET_ITEM(pair, 0, cand);
        PyTuple_SET_ITEM(pair, 1, value);
        /* a str and a float cannot form a cycle: the collector need not walk 40,000 pairs a
         * file (it would untrack them itself at its next pass) */
        PyObject_GC_UnTrack(pair);
        if (PyList_Append(out, pair) < 0) { Py_DECREF(pair); return -1; }
        Py_DECREF(pair);
        start = end + 1;
    }
    return 0;
}

/* parse_ranked(data, max_entries, max_lines, max_chars) -> dict | None */
static PyObject *parse_ranked(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_entries, max_lines, max_chars, pos = 0, lines = 0;
    PyObject *result = NULL, *out;
    Strings strings = {NULL, 0, 0};
    if (!PyArg_ParseTuple(args, "y*nnn", &view, &max_entries, &max_lines, &max_chars))
        return NULL;
    out = PyDict_New();
    if (out == NULL) goto done;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', size - pos);
        Py_ssize_t end = nl ? (Py_ssize_t)(nl - data) : size, i, key_start, key_end;
        const unsigned char *line = data + pos, *tab1, *tab2;
        Py_ssize_t len = end - pos;
        PyObject *key, *fields;
        int status;
        pos = end + 1;
        if (++lines >= max_lines || len >= max_chars) goto fallback;
        for (i = 0; i < len && is_blank(line[i]); i++) {}
        if (i == len) continue;  /* a blank line: skipped */
        tab1 = memchr(line, '\t', len);
        if (tab1 == NULL) goto fallback;
        key_start = tab1 - line + 1;
        tab2 = memchr(line + key_start, '\t', len - key_start);
        key_end = tab2 ? tab2 - line : len;
        while (key_start < key_end && is_blank(line[key_start])) key_start++;
        while (key_end > key_start && is_blank(line[key_end - 1])) key_end--;
        if (key_start == key_end) goto fallback;
        key = PyUnicode_DecodeLatin1((const char *)line + key_start, key_end - key_start, NULL);
        if (key == NULL) goto done;
        status = PyDict_Contains(out, key);
        if (status != 0) {  /* a repeated key (the line path warns), or an error */
            Py_DECREF(key);
            if (status < 0) goto done;
            goto fallback;
        }
        fields = PyList_New(0);
        if (fields == NULL) { Py_DECREF(key); goto done; }
        status = 0;
        if (tab2 != NULL) {
            Py_ssize_t from = tab2 - line + 1;
            status = read_fields(line + from, len - from, max_entries, &strings, fields);
        }
        if (status == 0) status = PyDict_SetItem(out, key, fields);
        Py_DECREF(key);
        Py_DECREF(fields);
        if (status < 0) goto done;
        if (status > 0) goto fallback;
    }
    result = out;
    out = NULL;
    goto done;
fallback:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(out);
    strings_free(&strings);
    PyBuffer_Release(&view);
    return result;
}

static int has_mwe_char(PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (kind == PyUnicode_1BYTE_KIND)
        return memchr(data, ' ', n) != NULL || memchr(data, '-', n) != NULL;
    for (i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == ' ' || c == '-') return 1;
    }
    return 0;
}

typedef struct { double score; PyObject *cand; } Ranked;

/* Stable merge sort by score, descending (ties keep file order): sorted(reverse=True). */
static void sort_desc(Ranked *a, Ranked *tmp, Py_ssize_t n) {
    Py_ssize_t width, i;
    for (i = 1; i < n; i++) {  /* runs of 16 by insertion */
        Py_ssize_t j = i;
        Ranked x = a[i];
        if (i % 16 == 0) continue;
        while (j > i - i % 16 && a[j - 1].score < x.score) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
    for (width = 16; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            Py_ssize_t mid = i + width < n ? i + width : n;
            Py_ssize_t hi = i + 2 * width < n ? i + 2 * width : n, l = i, r = mid, k = i;
            while (l < mid && r < hi) tmp[k++] = a[r].score > a[l].score ? a[r++] : a[l++];
            while (l < mid) tmp[k++] = a[l++];
            while (r < hi) tmp[k++] = a[r++];
        }
        memcpy(a, tmp, n * sizeof(Ranked));
    }
}

/* The ranking's GAP numerator (gap.py gap_numerator, no-mwe candidates left out first);
 * 1 where Python must compute it (a NaN or non-float score, a non-int count), -1 on error. */
static int numerator(PyObject *gold_map, PyObject *entries, double *out) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(entries), kept = 0, i;
    PyObject **items = PySequence_Fast_ITEMS(entries);
    Ranked *buf = PyMem_Malloc(2 * (n ? n : 1) * sizeof(Ranked));
    double accumulated = 0.0, sum = 0.0;
    int status = 0;
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    for (i = 0; i < n; i++) {
        PyObject *e = items[i], *cand, *score;
        if (!PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 2) { status = 1; goto out; }
        cand = PyTuple_GET_ITEM(e, 0);
        score = PyTuple_GET_ITEM(e, 1);
        if (!PyUnicode_CheckExact(cand) || !PyFloat_CheckExact(score)) { status = 1; goto out; }
        if (has_mwe_char(cand)) continue;
        buf[kept].score = PyFloat_AS_DOUBLE(score);
        if (buf[kept].score != buf[kept].score) { status = 1; goto out; }  /* NaN */
        buf[kept++].cand = cand;
    }
    sort_desc(buf, buf + n, kept);
    for (i = 0; i < kept; i++) {
        PyObject *count = PyDict_GetItemWithError(gold_map, buf[i].cand);
        long long value;
        int overflow;
        if (count == NULL) {
            if (PyErr_Occurred()) { status = -1; goto out; }
            continue;
        }
        if (!PyLong_CheckExact(count)) { status = 1; goto out; }
        value = PyLong_AsLongLongAndOverflow(count, &overflow);
        if (overflow || value > (1LL << 53) || value < -(1LL << 53)) { status = 1; goto out; }
        if (value) {
            accumulated += (double)value;
            if (value > 0) sum += accumulated / (double)(i + 1);
        }
    }
    *out = sum;
out:
    PyMem_Free(buf);
    return status;
}

/* 1 (with a ValueError set) where ``list`` does not hold ``n`` items. */
static int length_differs(PyObject *list, Py_ssize_t n, const char *message) {
    if (PyList_GET_SIZE(list) == n) return 0;
    PyErr_SetString(PyExc_ValueError, message);
    return 1;
}

/* Whether every score.pl match in ``matches`` (None, or a LineMatch: lemma, item, answers,
 * ...) has str parts and latin-1 answers: what the functions on answer lines read. */
static int latin1_matches(PyObject *matches) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(matches); i++) {
        PyObject *m = PyList_GET_ITEM(matches, i);
        if (m == Py_None) continue;
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) < 3 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(m, 1)) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(m, 2)) ||
            PyUnicode_KIND(PyTuple_GET_ITEM(m, 2)) != PyUnicode_1BYTE_KIND)
            return 0;
    }
    return 1;
}

/* gap_values(ranked, target_ids, gap_gold) -> list[float] | None: per instance, its GAP
 * (numerator / denominator), 0.0 where the denominator is not positive (skipped). */
static PyObject *gap_values(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ranked, *ids, *gold, *out;
    Py_ssize_t n, i;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyDict_Type, &ranked, &PyList_Type, &ids,
                          &PyList_Type, &gold))
        return NULL;
    n = PyList_GET_SIZE(ids);
    if (length_differs(gold, n, "target_ids and gap_gold differ in length")) return NULL;
    out = PyList_New(n);
    if (out == NULL) return NULL;
    for (i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(gold, i), *entries, *fast, *value;
        double denominator, num = 0.0, gap = 0.0;
        int status;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            !PyDict_Check(PyTuple_GET_ITEM(pair, 0)) ||
            !PyFloat_Check(PyTuple_GET_ITEM(pair, 1)))
            goto fallback;
        denominator = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(pair, 1));
        if (denominator > 0) {
            entries = PyDict_GetItemWithError(ranked, PyList_GET_ITEM(ids, i));
            if (entries == NULL && PyErr_Occurred()) goto error;
            if (entries != NULL) {
                fast = PySequence_Fast(entries, "a ranking must be a sequence");
                if (fast == NULL) goto error;
                status = numerator(PyTuple_GET_ITEM(pair, 0), fast, &num);
                Py_DECREF(fast);
                if (status < 0) goto error;
                if (status > 0) goto fallback;
            }
            gap = num / denominator;
        }
        value = PyFloat_FromDouble(gap);
        if (value == NULL) goto error;
        PyList_SET_ITEM(out, i, value);
    }
    return out;
fallback:
    Py_DECREF(out);
    Py_RETURN_NONE;
error:
    Py_DECREF(out);
    return NULL;
}

/* One ranking's distinct candidates, by hash and equality as a set keeps them (a file read by
 * parse_ranked gives each spelling one object: equal strings are mostly the same object). */
typedef struct { PyObject *key; Py_hash_t hash; } Entry;

static void release(PyObject **objects, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(objects[i]);
}

/* Adds key; 1 when it was new, 0 when an equal key is there, -1 on error. */
static int distinct_add(Entry *table, size_t mask, PyObject *key) {
    Py_hash_t hash = PyObject_Hash(key);
    size_t j;
    if (hash == -1) return -1;
    for (j = (size_t)hash & mask; table[j].key != NULL; j = (j + 1) & mask) {
        int same;
        if (table[j].key == key) return 0;
        if (table[j].hash != hash) continue;
        same = PyObject_RichCompareBool(table[j].key, key, Py_EQ);
        if (same != 0) return same < 0 ? -1 : 0;
    }
    table[j].key = key;
    table[j].hash = hash;
    return 1;
}

/* coverage(ranked, target_ids, pools, gold_maps, distinct) -> (outside, outside_gold,
 * left_out): validation.py's count of ranked strings outside each instance's pool (credited
 * or not by its gold) and of pool candidates left out; ids of instances that rank no
 * candidate twice are added to ``distinct``. */
static PyObject *coverage(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ranked, *ids, *pools, *gold, *distinct, *zero, *result = NULL;
    Py_ssize_t n, i, outside = 0, outside_gold = 0, left_out = 0;
    Entry *table = NULL;
    PyObject **firsts = NULL;
    size_t capacity = 0;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!", &PyDict_Type, &ranked, &PyList_Type, &ids,
                          &PyList_Type, &pools, &PyList_Type, &gold, &PySet_Type, &distinct))
        return NULL;
    n = PyList_GET_SIZE(ids);
    if (length_differs(pools, n, "target_ids and pools differ in length") ||
        length_differs(gold, n, "target_ids and gold_maps differ in length"))
        return NULL;
    zero = PyLong_FromLong(0);
    if (zero == NULL) return NULL;
    for (i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i), *pool = PyList_GET_ITEM(pools, i);
        PyObject *gold_map = PyList_GET_ITEM(gold, i), *entries, *fast = NULL;
        Py_ssize_t m, j, in_pool = 0, size = 0;
        size_t slots;
        if (!PyAnySet_Check(pool) || !PyDict_Check(gold_map)) {
            PyErr_SetString(PyExc_TypeError, "pools are sets and gold_maps dicts");
            goto done;
        }
        entries = PyDict_GetItemWithError(ranked, id);
        if (entries == NULL) {
            if (PyErr_Occurred()) goto done;
            continue;
        }
        fast = PySequence_Fast(entries, "a ranking must be a sequence");
        if (fast == NULL) goto done;
        m = PySequence_Fast_GET_SIZE(fast);
        if (m == 0) { Py_DECREF(fast); continue; }
        /* this ranking's table: a power of two, at least twice its entries (a long ranking
         * grows the buffer; a short one after it clears only what it uses) */
        for (slots = 64; slots < (size_t)m * 2; slots *= 2) {}
        if (slots > capacity) {
            capacity = slots;
            PyMem_Free(table);
            PyMem_Free(firsts);
            table = PyMem_Malloc(capacity * sizeof(Entry));
            firsts = PyMem_Malloc(capacity * sizeof(PyObject *));
            if (table == NULL || firsts == NULL) { PyErr_NoMemory(); Py_DECREF(fast); goto done; }
        }
        memset(table, 0, slots * sizeof(Entry));
        for (j = 0; j < m; j++) {
            PyObject *e = PySequence_Fast_GET_ITEM(fast, j), *cand;
            int added;
            if (PyTuple_CheckExact(e) && PyTuple_GET_SIZE(e) >= 1) {
                cand = Py_NewRef(PyTuple_GET_ITEM(e, 0));
            } else {
                cand = PySequence_GetItem(e, 0);
                if (cand == NULL) { Py_DECREF(fast); goto done; }
            }
            added = distinct_add(table, slots - 1, cand);
            if (added > 0) firsts[size++] = cand;  /* its reference: released below */
            else Py_DECREF(cand);
            if (added < 0) { release(firsts, size); Py_DECREF(fast); goto done; }
        }
        Py_DECREF(fast);
        if (size == m && PySet_Add(distinct, id) < 0) { release(firsts, size); goto done; }
        for (j = 0; j < size; j++) {
            PyObject *cand = firsts[j], *count;
            int found = PySet_Contains(pool, cand), credited = 0;
            if (found < 0) { release(firsts, size); goto done; }
            if (found) { in_pool++; continue; }
            count = PyDict_GetItemWithError(gold_map, cand);
            if (count == NULL && PyErr_Occurred()) { release(firsts, size); goto done; }
            if (count != NULL) {
                credited = PyObject_RichCompareBool(count, zero, Py_GT);
                if (credited < 0) { release(firsts, size); goto done; }
            }
            if (credited) outside_gold++;
            else outside++;
        }
        release(firsts, size);
        left_out += PySet_GET_SIZE(pool) - in_pool;
    }
    result = Py_BuildValue("nnn", outside, outside_gold, left_out);
done:
    PyMem_Free(table);
    PyMem_Free(firsts);
    Py_DECREF(zero);
    return result;
}

/* A count of Jabbari et al.'s gold as a double; 1 where it is not an int a double holds. */
static int count_value(PyObject *count, double *out) {
    long long value;
    int overflow;
    if (!PyLong_CheckExact(count)) return 1;
    value = PyLong_AsLongLongAndOverflow(count, &overflow);
    if (overflow || value > (1LL << 53) || value < -(1LL << 53)) return 1;
    *out = (double)value;
    return 0;
}

/* jabbari.py _f: coverage P, R and F from the gold counts found and the answers outside. */
static void coverage_prf(double found, double wrong, double total, double *p, double *r,
                         double *f) {
    *p = found + wrong != 0.0 ? found / (found + 1.0 * wrong) : 0.0;
    *r = found / total;
    *f = *p + *r != 0.0 ? 2 * *p * *r / (*p + *r) : 0.0;
}

#define JB_VALUES 15  /* jabbari.COLUMNS: jb_item, best1, P, R, F, F@1..10 */
#define JB_CUTS 10

/* One instance's row (jabbari.py jabbari_row with trimmed answers, and jabbari_rows.py's
 * best1 of the .best line's first answer where ``top`` is given); 1 where Python must do it,
 * -1 on error. */
static int jabbari_one(PyObject *counts, double total, PyObject *answers, PyObject *top,
                       Entry *table, size_t capacity, PyObject **order, double *row) {
    Py_ssize_t n = answers ? PySequence_Fast_GET_SIZE(answers) : 0, size = 0, j, pos = 0;
    size_t slots;
    double max_count = 0.0, found = 0.0, wrong = 0.0, h, p, r;
    PyObject *key, *value;
    int any_gold = 0, first = 1, status;
    memset(row, 0, JB_VALUES * sizeof(double));
    if (total <= 0) return 0;
    row[0] = 1.0;
    while (PyDict_Next(counts, &pos, &key, &value)) {  /* max(counts.values()) */
        if (count_value(value, &h)) return 1;
        if (first || h > max_count) max_count = h;
        first = 0;
    }
    for (slots = 64; slots < (size_t)n * 2; slots *= 2) {}
    if (slots > capacity) return 2;  /* the caller grows the table */
    memset(table, 0, slots * sizeof(Entry));
    for (j = 0; j < n; j++) {  /* dict.fromkeys(answers): first of each, in order */
        PyObject *answer = PySequence_Fast_GET_ITEM(answers, j);
        status = distinct_add(table, slots - 1, answer);
        if (status < 0) return -1;
        if (status) order[size++] = answer;
    }
    for (j = 0; j < size && !any_gold; j++) {
        status = PyDict_Contains(counts, order[j]);
        if (status < 0) return -1;
        any_gold = status;
    }
    if (any_gold) {
        double cut[JB_CUTS];
        value = PyDict_GetItemWithError(counts, order[0]);
        if (value == NULL && PyErr_Occurred()) return -1;
        h = 0.0;
        if (value != NULL && count_value(value, &h)) return 1;
        row[1] = (h > 0.0 ? h : 0.0) / max_count;
        for (j = 0; j < size; j++) {
            value = PyDict_GetItemWithError(counts, order[j]);
            if (value == NULL && PyErr_Occurred()) return -1;
            h = 0.0;
            if (value != NULL && count_value(value, &h)) return 1;
            found += h;
            wrong += h <= 0.0;
            if (j >= JB_CUTS) continue;
            if (found > 0) {
                p = found / (found + 1.0 * wrong);
                r = found / total;
                cut[j] = 2 * p * r / (p + r);
            } else if (found == 0) {
                cut[j] = 0.0;
            } else {
                coverage_prf(found, wrong, total, &p, &r, &cut[j]);
            }
        }
        for (j = size; j < JB_CUTS; j++) cut[j] = cut[size - 1];  /* the last one, again */
        coverage_prf(found, wrong, total, &row[2], &row[3], &row[4]);
        memcpy(row + 5, cut, sizeof(cut));
    }
    if (top != NULL && PyList_Check(top) && PyList_GET_SIZE(top) > 0) {
        value = PyDict_GetItemWithError(counts, PyList_GET_ITEM(top, 0));
        if (value == NULL && PyErr_Occurred()) return -1;
        h = 0.0;
        if (value != NULL && count_value(value, &h)) return 1;
        row[1] = (h > 0.0 ? h : 0.0) / max_count;
    } else if (top != NULL && top != Py_None && !PyList_Check(top)) {
        return 1;
    }
    return 0;
}

/* jabbari_rows(item_ids, counts, totals, coverage, first) -> list[tuple] | None: each
 * instance's Jabbari values (jabbari_rows.py jabbari_values): ``coverage`` maps score.pl's
 * item id to the answers of the line coverage reads, ``first`` (or None) to those of the
 * line best1 reads where that is another line. */
static PyObject *jabbari_rows(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ids, *counts, *totals, *cover, *first, *out = NULL;
    Py_ssize_t n, i;
    size_t capacity = 64;
    Entry *table = PyMem_Malloc(capacity * sizeof(Entry));
    PyObject **order = PyMem_Malloc(capacity * sizeof(PyObject *));
    if (table == NULL || order == NULL) { PyErr_NoMemory(); goto done; }
    if (!PyArg_ParseTuple(args, "O!O!O!O!O", &PyList_Type, &ids, &PyList_Type, &counts,
                          &PyList_Type, &totals, &PyDict_Type, &cover, &first))
        goto done;
    if (first != Py_None && !PyDict_Check(first)) {
        PyErr_SetString(PyExc_TypeError, "first must be a dict or None");
        goto done;
    }
    n = PyList_GET_SIZE(ids);
    if (length_differs(counts, n, "item_ids and counts differ in length") ||
        length_differs(totals, n, "item_ids and totals differ in length"))
        goto done;
    out = PyList_New(n);
    if (out == NULL) goto done;
    for (i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i), *gold = PyList_GET_ITEM(counts, i);
        PyObject *answers, *fast = NULL, *top = NULL, *tuple;
        double row[JB_VALUES], total;
        int status;
        if (!PyDict_Check(gold) || count_value(PyList_GET_ITEM(totals, i), &total)) goto fallback;
        answers = PyDict_GetItemWithError(cover, id);
        if (answers == NULL && PyErr_Occurred()) goto error;
        if (answers != NULL) {
            fast = PySequence_Fast(answers, "answers must be a sequence");
            if (fast == NULL) goto error;
            for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(fast); j++)
                if (!PyUnicode_CheckExact(PySequence_Fast_GET_ITEM(fast, j))) {
                    Py_DECREF(fast);
                    goto fallback;
                }
        }
        if (first != Py_None) {
            top = PyDict_GetItemWithError(first, id);
            if (top == NULL && PyErr_Occurred()) { Py_XDECREF(fast); goto error; }
        }
        while ((status = jabbari_one(gold, total, fast, top, table, capacity, order, row)) == 2) {
            PyMem_Free(table);
            PyMem_Free(order);
            capacity *= 2;
            table = PyMem_Malloc(capacity * sizeof(Entry));
            order = PyMem_Malloc(capacity * sizeof(PyObject *));
            if (table == NULL || order == NULL) {
                PyErr_NoMemory();
                Py_XDECREF(fast);
                goto error;
            }
        }
        Py_XDECREF(fast);
        if (status < 0) goto error;
        if (status > 0) goto fallback;
        tuple = PyTuple_New(JB_VALUES);
        if (tuple == NULL) goto error;
        for (int k = 0; k < JB_VALUES; k++) {
            PyObject *v = PyFloat_FromDouble(row[k]);
            if (v == NULL) { Py_DECREF(tuple); goto error; }
            PyTuple_SET_ITEM(tuple, k, v);
        }
        PyList_SET_ITEM(out, i, tuple);
    }
    goto done;
fallback:
    Py_DECREF(out);
    out = Py_NewRef(Py_None);
    goto done;
error:
    Py_CLEAR(out);
done:
    PyMem_Free(table);
    PyMem_Free(order);
    return out;
}

/* score.pl's rule for an answer line ``m`` (a LineMatch, or None): the first line of an item
 * with gold credit counts. 1: it counts (its item added to ``done``, its norms in *norms);
 * 0: it does not; -1: an error. */
static int counted_line(PyObject *m, PyObject *done, PyObject *norms_of, PyObject **norms) {
    PyObject *item;
    int seen;
    if (m == Py_None) return 0;
    item = PyTuple_GET_ITEM(m, 1);
    seen = PySet_Contains(done, item);
    if (seen) return seen < 0 ? -1 : 0;
    *norms = PyDict_GetItemWithError(norms_of, item);
    if (*norms == NULL) return PyErr_Occurred() ? -1 : 0;
    if (!PyDict_Check(*norms) || PyDict_GET_SIZE(*norms) == 0) return 0;
    return PySet_Add(done, item) < 0 ? -1 : 1;
}

/* score.pl's fixmisc of one guess (s[0:n], latin-1) into out (room for n bytes): "non" and a
 * blank or hyphen -> "non", every hyphen -> space, the first apostrophe removed. */
static Py_ssize_t fix_guess(const unsigned char *s, Py_ssize_t n, unsigned char *out) {
    Py_ssize_t i = 0, k = 0;
    int apostrophe = 0;
    if (n >= 4 && memcmp(s, "non", 3) == 0 && (s[3] == '-' || is_blank(s[3]))) {
        memcpy(out, "non", 3);
        k = 3;
        i = 4;
    }
    for (; i < n; i++) {
        if (s[i] == '\'' && !apostrophe) { apostrophe = 1; continue; }
        out[k++] = s[i] == '-' ? ' ' : s[i];
    }
    return k;
}

static void guesses_clear(PyObject **guesses, Py_ssize_t *n) {
    for (Py_ssize_t i = 0; i < *n; i++) Py_DECREF(guesses[i]);
    *n = 0;
}

/* scorepl_columns(matches, best, norms, modes, row_of, attempted, credits, mode_attempted,
 * mode_hit) -> bool: scorepl.py score_columns, each column a list of floats added to in
 * place; False (nothing changed) where an answer part is not latin-1 text, the caller then
 * runs the Python definition. */
static PyObject *scorepl_columns(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *matches, *norms_of, *modes, *row_of, *lists[4], *done = NULL, *result = NULL;
    PyObject **guesses = NULL;
    int best;
    Py_ssize_t n, rows, i, count = 0, room = 0, buf_room = 0;
    double *cols = NULL;
    unsigned char *buf = NULL;
    if (!PyArg_ParseTuple(args, "O!pO!O!O!O!O!O!O!", &PyList_Type, &matches, &best,
                          &PyDict_Type, &norms_of, &PyDict_Type, &modes, &PyDict_Type, &row_of,
                          &PyList_Type, &lists[0], &PyList_Type, &lists[1], &PyList_Type,
                          &lists[2], &PyList_Type, &lists[3]))
        return NULL;
    n = PyList_GET_SIZE(matches);
    rows = PyList_GET_SIZE(lists[0]);
    if (!latin1_matches(matches)) Py_RETURN_FALSE;  /* nothing is done here */
    for (int c = 1; c < 4; c++)
        if (length_differs(lists[c], rows, "the columns differ in length")) return NULL;
    cols = PyMem_Malloc(4 * (rows ? rows : 1) * sizeof(double));
    done = PySet_New(NULL);
    if (cols == NULL || done == NULL) { PyErr_NoMemory(); goto error; }
    for (int c = 0; c < 4; c++)
        for (i = 0; i < rows; i++) {
            PyObject *v = PyList_GET_ITEM(lists[c], i);
            if (!PyFloat_CheckExact(v)) { result = Py_NewRef(Py_False); goto error; }
            cols[c * rows + i] = PyFloat_AS_DOUBLE(v);
        }
    for (i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *norms = NULL, *row, *mode;
        Py_ssize_t r, len, j, start, used;
        const unsigned char *text;
        int counts = counted_line(m, done, norms_of, &norms), blank = 1;
        if (counts < 0) goto error;
        if (!counts) continue;
        item = PyTuple_GET_ITEM(m, 1);
        row = PyDict_GetItemWithError(row_of, item);
        if (row == NULL) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, item);
            goto error;
        }
        r = PyLong_AsSsize_t(row);
        if (r == -1 && PyErr_Occurred()) goto error;
        if (r < 0 || r >= rows) { PyErr_SetString(PyExc_IndexError, "row"); goto error; }
        text = PyUnicode_1BYTE_DATA(PyTuple_GET_ITEM(m, 2));
        len = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(m, 2));
        for (j = 0; j < len && blank; j++) blank = is_blank(text[j]);
        if (!blank) {  /* else the previous counted line's answers stay */
            Py_ssize_t end = len;
            guesses_clear(guesses, &count);
            while (end > 0 && text[end - 1] == ';') end--;  /* perl's split: no trailing empties */
            if (buf_room < len + 1) {
                PyMem_Free(buf);
                buf_room = len + 1;
                buf = PyMem_Malloc(buf_room);
                if (buf == NULL) { PyErr_NoMemory(); goto error; }
            }
            for (start = 0; start <= end && end > 0; ) {
                const unsigned char *semi = memchr(text + start, ';', end - start);
                Py_ssize_t stop = semi ? semi - text : end, k;
                PyObject *guess;
                if (count >= room) {
                    Py_ssize_t grown = room ? 2 * room : 64;
                    PyObject **more = PyMem_Realloc(guesses, grown * sizeof(PyObject *));
                    if (more == NULL) { PyErr_NoMemory(); goto error; }
                    guesses = more;
                    room = grown;
                }
                k = fix_guess(text + start, stop - start, buf);
                guess = PyUnicode_DecodeLatin1((const char *)buf, k, NULL);
                if (guess == NULL) goto error;
                guesses[count++] = guess;
                if (semi == NULL) break;
                start = stop + 1;
            }
            if (count) cols[0 * rows + r] += 1.0;
        }
        used = best ? count : (count < 10 ? count : 10);
        if (!best && used < count) {  /* the cut to 10 stays with these answers */
            for (j = used; j < count; j++) Py_DECREF(guesses[j]);
            count = used;
        }
        if (used) {
            double credit = 0.0;
            mode = PyDict_GetItemWithError(modes, item);
            if (mode == NULL && PyErr_Occurred()) goto error;
            if (mode != NULL && PyObject_IsTrue(mode)) {
                int hit = 0;
                cols[2 * rows + r] += 1.0;
                for (j = 0; j < (best ? 1 : used) && !hit; j++) {
                    hit = PyObject_RichCompareBool(mode, guesses[j], Py_EQ);
                    if (hit < 0) goto error;
                }
                if (hit) cols[3 * rows + r] += 1.0;
            }
            for (j = 0; j < used; j++) {  /* added one at a time, in order */
                PyObject *value = PyDict_GetItemWithError(norms, guesses[j]);
                if (value == NULL && PyErr_Occurred()) goto error;
                if (value == NULL) { credit += 0.0; continue; }
                if (!PyFloat_Check(value)) { result = Py_NewRef(Py_False); goto error; }
                credit += PyFloat_AS_DOUBLE(value);
            }
            if (credit != 0.0) cols[1 * rows + r] += best ? credit / (double)used : credit;
        }
    }
    for (int c = 0; c < 4; c++)
        for (i = 0; i < rows; i++) {
            PyObject *v = PyFloat_FromDouble(cols[c * rows + i]);
            if (v == NULL || PyList_SetItem(lists[c], i, v) < 0) goto error;
        }
    result = Py_NewRef(Py_True);
error:
    guesses_clear(guesses, &count);
    PyMem_Free(guesses);
    PyMem_Free(buf);
    PyMem_Free(cols);
    Py_XDECREF(done);
    return result;
}

/* oot_repeats(lines, matches, norms) -> list[(number, item)] | None: repeats.py oot_repeats,
 * the .oot lines score.pl counts in "OOT file contains duplicates on N lines". */
static PyObject *oot_repeats(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *lines, *matches, *norms_of, *done = NULL, *out = NULL;
    Py_ssize_t n, i, buf_room = 0, cap = 0;
    unsigned char *buf = NULL;
    struct { size_t hash; Py_ssize_t start, len; } *table = NULL;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &lines, &PyList_Type, &matches,
                          &PyDict_Type, &norms_of))
        return NULL;
    n = PyList_GET_SIZE(matches);
    if (length_differs(lines, n, "lines and matches differ in length")) return NULL;
    if (!latin1_matches(matches)) Py_RETURN_NONE;  /* the Python definition */
    done = PySet_New(NULL);
    out = PyList_New(0);
    if (done == NULL || out == NULL) goto error;
    for (i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *norms = NULL;
        const unsigned char *text;
        Py_ssize_t len, end, start, k = 0, fields = 0, j;
        size_t slots;
        int counts = counted_line(m, done, norms_of, &norms), blank = 1, repeated = 0;
        if (counts < 0) goto error;
        if (!counts) continue;
        item = PyTuple_GET_ITEM(m, 1);
        text = PyUnicode_1BYTE_DATA(PyTuple_GET_ITEM(m, 2));
        len = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(m, 2));
        for (j = 0; j < len && blank; j++) blank = is_blank(text[j]);
        if (blank) continue;
        end = len;
        while (end > 0 && text[end - 1] == ';') end--;  /* perl's split */
        if (end == 0) continue;
        for (j = 0; j < end; j++) fields += text[j] == ';';
        fields++;
        for (slots = 64; slots < (size_t)fields * 2; slots *= 2) {}
        if (buf_room < end + 1 || (Py_ssize_t)slots > cap) {
            PyMem_Free(buf);
            PyMem_Free(table);
            buf_room = end + 1;
            cap = (Py_ssize_t)slots;
            buf = PyMem_Malloc(buf_room);
            table = PyMem_Malloc(cap * sizeof(*table));
            if (buf == NULL || table == NULL) { PyErr_NoMemory(); goto error; }
        }
        for (j = 0; j < (Py_ssize_t)slots; j++) table[j].len = -1;
        for (start = 0; !repeated; ) {  /* each field fixmisc'd, then looked up */
            const unsigned char *semi = memchr(text + start, ';', end - start);
            Py_ssize_t stop = semi ? semi - text : end, length = fix_guess(text + start,
                                                                             stop - start, buf + k);
            size_t hash = (size_t)_Py_HashBytes(buf + k, length), at;
            for (at = hash & (slots - 1); table[at].len >= 0; at = (at + 1) & (slots - 1))
                if (table[at].hash == hash && table[at].len == length &&
                    memcmp(buf + table[at].start, buf + k, length) == 0) {
                    repeated = 1;
                    break;
                }
            table[at].hash = hash;
            table[at].start = k;
            table[at].len = length;
            k += length;
            if (semi == NULL) break;
            start = stop + 1;
        }
        if (repeated) {
            PyObject *number = PyTuple_Check(PyList_GET_ITEM(lines, i)) &&
                PyTuple_GET_SIZE(PyList_GET_ITEM(lines, i)) >= 1 ?
                PyTuple_GET_ITEM(PyList_GET_ITEM(lines, i), 0) : NULL;
            PyObject *pair;
            if (number == NULL) { PyErr_SetString(PyExc_TypeError, "lines: (number, text)"); goto error; }
            pair = PyTuple_Pack(2, number, item);
            if (pair == NULL || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); goto error; }
            Py_DECREF(pair);
        }
    }
    goto finish;
error:
    Py_CLEAR(out);
finish:
    Py_XDECREF(done);
    PyMem_Free(buf);
    PyMem_Free(table);
    return out;
}

static int is_word(unsigned char c) {  /* perl's and Python's ASCII [\w.] */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
           c == '.';
}

/* score.pl's match of ``([\w.]+) (\S+) <sep>`` on s[0:n] (lines.py match_kind): the leftmost
 * space after a [\w.] character followed by a run of non-blanks and the separator. Sets the
 * space's index and the run's end; 0 where there is none. */
static int match_sep(const unsigned char *s, Py_ssize_t n, const char *sep, Py_ssize_t seplen,
                     Py_ssize_t *space, Py_ssize_t *run_end) {
    Py_ssize_t p = 1;
    while (p < n) {
        const unsigned char *found = memchr(s + p, ' ', n - p);
        Py_ssize_t q;
        if (found == NULL) return 0;
        p = found - s;
        if (!is_word(s[p - 1])) { p++; continue; }
        for (q = p + 1; q < n && !is_blank(s[q]); q++) {}
        if (q > p + 1 && n - q >= seplen && memcmp(s + q, sep, seplen) == 0) {
            *space = p;
            *run_end = q;
            return 1;
        }
        p = q > p + 1 ? q : p + 1;  /* runs after different spaces do not overlap */
    }
    return 0;
}

static int is_py_space(unsigned char c) {  /* str.strip()'s blanks among latin-1 */
    return Py_UNICODE_ISSPACE(c);
}

/* parse_lines(data, max_entries, max_lines, max_chars, line_match) -> (best_lines, oot_lines,
 * best_matches, oot_matches, keys, best_firsts, oot_firsts) | None: formats.py parse_lines on
 * a usual file (every non-blank line a .best or .oot line, no id twice in a kind, no CR at a
 * line's end, within the limits, at least one answer line); None for any other, which the
 * Python reader reads with its warnings. */
static PyObject *parse_lines(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_entries, max_lines, max_chars, pos = 0, number = 0;
    PyObject *line_match, *result = NULL, *lists[4] = {NULL, NULL, NULL, NULL};
    PyObject *keys = NULL, *firsts[2] = {NULL, NULL}, *seen[2] = {NULL, NULL};
    if (!PyArg_ParseTuple(args, "y*nnnO", &view, &max_entries, &max_lines, &max_chars,
                          &line_match))
        return NULL;
    if (!PyType_Check(line_match) ||
        !PyType_IsSubtype((PyTypeObject *)line_match, &PyTuple_Type)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "line_match must be a named tuple class");
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    for (int k = 0; k < 4; k++) if ((lists[k] = PyList_New(0)) == NULL) goto done;
    for (int k = 0; k < 2; k++) {
        if ((firsts[k] = PyDict_New()) == NULL || (seen[k] = PySet_New(NULL)) == NULL) goto done;
    }
    if ((keys = PySet_New(NULL)) == NULL) goto done;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', size - pos), *s = data + pos;
        Py_ssize_t end = nl ? (Py_ssize_t)(nl - data) : size, n = end - pos, space, run_end;
        Py_ssize_t j, semis = 0, lemma_start, key_start, key_end;
        int kind = -1, blank = 1, status;  /* 0: best, 1: oot */
        PyObject *text = NULL, *lemma = NULL, *item = NULL, *answers = NULL, *num = NULL;
        PyObject *match = NULL, *pair = NULL, *key = NULL;
        pos = end + 1;
        if (++number >= max_lines || n >= max_chars) goto fallback;
        if (memmem(s, n, " ::: ", 5) && match_sep(s, n, " ::: ", 5, &space, &run_end))
            kind = 1;
        else if (memmem(s, n, " :: ", 4) && match_sep(s, n, " :: ", 4, &space, &run_end))
            kind = 0;
        if (kind < 0) {
            for (j = 0; j < n && blank; j++) blank = is_blank(s[j]);
            if (blank) continue;  /* skipped without a word, as score.pl does */
            goto fallback;        /* "Error in file on line N": the Python reader says so */
        }
        if (n > 0 && s[n - 1] == '\r') goto fallback;  /* the carriage-return warning */
        for (j = run_end + (kind ? 5 : 4); j < n; j++) semis += s[j] == ';';
        if (semis > max_entries) goto fallback;
        for (lemma_start = space; lemma_start > 0 && is_word(s[lemma_start - 1]); lemma_start--) {}
        for (key_start = 0; key_start < space && is_py_space(s[key_start]); key_start++) {}
        for (key_end = space; key_end > key_start && is_py_space(s[key_end - 1]); key_end--) {}
        text = PyUnicode_DecodeLatin1((const char *)s, n, NULL);
        lemma = PyUnicode_DecodeLatin1((const char *)s + lemma_start, space - lemma_start, NULL);
        item = PyUnicode_DecodeLatin1((const char *)s + space + 1, run_end - space - 1, NULL);
        answers = PyUnicode_DecodeLatin1((const char *)s + run_end + (kind ? 5 : 4),
                                         n - run_end - (kind ? 5 : 4), NULL);
        num = PyLong_FromSsize_t(number);
        if (text == NULL || lemma == NULL || item == NULL || answers == NULL || num == NULL)
            goto line_error;
        status = PySet_Contains(seen[kind], item);
        if (status != 0) goto line_decline;  /* an id twice: the duplicate warning */
        if (PySet_Add(seen[kind], item) < 0) goto line_error;
        {  /* LineMatch(lemma, item, answers, space), made as tuple.__new__ makes it (the
            * named tuple's own __new__ is Python code) */
            PyObject *end_at = PyLong_FromSsize_t(space), *fields, *wrapped;
            fields = end_at == NULL ? NULL : PyTuple_Pack(4, lemma, item, answers, end_at);
            wrapped = fields == NULL ? NULL : PyTuple_Pack(1, fields);
            match = wrapped == NULL ? NULL : PyTuple_Type.tp_new(
                (PyTypeObject *)line_match, wrapped, NULL);
            Py_XDECREF(end_at);
            Py_XDECREF(fields);
            Py_XDECREF(wrapped);
        }
        {  /* the key: "lemma.pos ID", the lemma with whatever precedes the match, trimmed */
            PyObject *head = PyUnicode_DecodeLatin1((const char *)s + key_start,
                                                    key_end - key_start, NULL);
            if (head != NULL) key = PyUnicode_FromFormat("%U %U", head, item);
            Py_XDECREF(head);
        }
        pair = PyTuple_Pack(2, num, text);
        if (match == NULL || key == NULL || pair == NULL) goto line_error;
        if (PyList_Append(lists[kind], pair) < 0 || PyList_Append(lists[2 + kind], match) < 0 ||
            PySet_Add(keys, key) < 0 || PyDict_SetDefault(firsts[kind], key, answers) == NULL)
            goto line_error;
        Py_DECREF(text); Py_DECREF(lemma); Py_DECREF(item); Py_DECREF(answers); Py_DECREF(num);
        Py_DECREF(match); Py_DECREF(key); Py_DECREF(pair);
        continue;
line_decline:
        if (status < 0) goto line_error;
        Py_XDECREF(text); Py_XDECREF(lemma); Py_XDECREF(item); Py_XDECREF(answers);
        Py_XDECREF(num);
        goto fallback;
line_error:
        Py_XDECREF(text); Py_XDECREF(lemma); Py_XDECREF(item); Py_XDECREF(answers);
        Py_XDECREF(num); Py_XDECREF(match); Py_XDECREF(key); Py_XDECREF(pair);
        goto done;
    }
    if (PyList_GET_SIZE(lists[0]) == 0 && PyList_GET_SIZE(lists[1]) == 0) goto fallback;
    result = Py_BuildValue("(OOOOOOO)", lists[0], lists[1], lists[2], lists[3], keys,
                           firsts[0], firsts[1]);
    goto done;
fallback:
    result = Py_NewRef(Py_None);
done:
    for (int k = 0; k < 4; k++) Py_XDECREF(lists[k]);
    for (int k = 0; k < 2; k++) { Py_XDECREF(firsts[k]); Py_XDECREF(seen[k]); }
    Py_XDECREF(keys);
    PyBuffer_Release(&view);
    return result;
}

/* The ';' fields of s[0:n] kept by ``keep`` (the field and its length) as a new list of str,
 * each field trimmed of ASCII blanks first where ``trim``. */
static PyObject *split_fields(const unsigned char *s, Py_ssize_t n, int trim,
                              int (*keep)(const unsigned char *, Py_ssize_t)) {
    PyObject *out = PyList_New(0);
    Py_ssize_t start = 0;
    if (out == NULL) return NULL;
    while (start <= n) {
        const unsigned char *semi = memchr(s + start, ';', n - start);
        Py_ssize_t a = start, b = semi ? semi - s : n;
        start = b + 1;
        if (trim) {
            while (a < b && is_blank(s[a])) a++;
            while (b > a && is_blank(s[b - 1])) b--;
        }
        if (keep(s + a, b - a)) {
            PyObject *field = PyUnicode_DecodeLatin1((const char *)s + a, b - a, NULL);
            if (field == NULL || PyList_Append(out, field) < 0) {
                Py_XDECREF(field);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(field);
        }
    }
    return out;
}

static int not_empty(const unsigned char *Py_UNUSED(s), Py_ssize_t n) { return n > 0; }

static int not_py_blank(const unsigned char *s, Py_ssize_t n) {  /* a.strip() is not "" */
    for (Py_ssize_t i = 0; i < n; i++) if (!is_py_space(s[i])) return 1;
    return 0;
}

/* first_answers(matches) -> dict | None: jabbari_rows.py first_lines, score.pl's item id ->
 * the answers of its first line (fields trimmed of ASCII blanks, empty ones left out). */
static PyObject *first_answers(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *matches, *out;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &matches)) return NULL;
    if (!latin1_matches(matches)) Py_RETURN_NONE;
    out = PyDict_New();
    if (out == NULL) return NULL;
    for (i = 0; i < PyList_GET_SIZE(matches); i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *fields, *text;
        int status;
        if (m == Py_None) continue;
        item = PyTuple_GET_ITEM(m, 1);
        status = PyDict_Contains(out, item);
        if (status < 0) { Py_DECREF(out); return NULL; }
        if (status) continue;
        text = PyTuple_GET_ITEM(m, 2);
        fields = split_fields(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text), 1,
                              not_empty);
        if (fields == NULL || PyDict_SetItem(out, item, fields) < 0) {
            Py_XDECREF(fields);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(fields);
    }
    return out;
}

/* line_entries(firsts) -> dict | None: formats.py Answers._set_entries, key -> [(answer,
 * -i)] of its answer part's fields that are not blank (str.strip()), as written. */
static PyObject *line_entries(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *firsts, *out, *key, *text;
    Py_ssize_t pos = 0;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &firsts)) return NULL;
    while (PyDict_Next(firsts, &pos, &key, &text))
        if (!PyUnicode_Check(text) || PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
            Py_RETURN_NONE;
    out = PyDict_New();
    if (out == NULL) return NULL;
    pos = 0;
    while (PyDict_Next(firsts, &pos, &key, &text)) {
        PyObject *fields = split_fields(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text),
                                        0, not_py_blank);
        Py_ssize_t j;
        if (fields == NULL) { Py_DECREF(out); return NULL; }
        for (j = 0; j < PyList_GET_SIZE(fields); j++) {
            PyObject *rank = PyFloat_FromDouble(j ? -(double)j : 0.0), *pair;
            pair = rank == NULL ? NULL : PyTuple_Pack(2, PyList_GET_ITEM(fields, j), rank);
            Py_XDECREF(rank);
            if (pair == NULL) { Py_DECREF(fields); Py_DECREF(out); return NULL; }
            PyList_SetItem(fields, j, pair);  /* steals pair, drops the str */
        }
        if (PyDict_SetItem(out, key, fields) < 0) {
            Py_DECREF(fields);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(fields);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"parse_ranked", parse_ranked, METH_VARARGS,
     "parse_ranked(data, max_entries, max_lines, max_chars) -> dict | None"},
    {"gap_values", gap_values, METH_VARARGS,
     "gap_values(ranked, target_ids, gap_gold) -> list[float] | None"},
    {"coverage", coverage, METH_VARARGS,
     "coverage(ranked, target_ids, pools, gold_maps, distinct) -> (outside, outside_gold, "
     "left_out)"},
    {"jabbari_rows", jabbari_rows, METH_VARARGS,
     "jabbari_rows(item_ids, counts, totals, coverage, first) -> list[tuple] | None"},
    {"scorepl_columns", scorepl_columns, METH_VARARGS,
     "scorepl_columns(matches, best, norms, modes, row_of, attempted, credits, mode_attempted, "
     "mode_hit) -> bool"},
    {"oot_repeats", oot_repeats, METH_VARARGS,
     "oot_repeats(lines, matches, norms) -> list[(number, item)] | None"},
    {"parse_lines", parse_lines, METH_VARARGS,
     "parse_lines(data, max_entries, max_lines, max_chars, line_match) -> tuple | None"},
    {"first_answers", first_answers, METH_VARARGS, "first_answers(matches) -> dict | None"},
    {"line_entries", line_entries, METH_VARARGS, "line_entries(firsts) -> dict | None"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
