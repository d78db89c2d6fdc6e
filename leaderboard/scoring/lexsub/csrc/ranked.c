/* A usual RANKED file read as a whole (ranked.py parse_ranked), its pool check
 * (validation.py _pool_counts) and GAP (gap.py gap_numerator), the same to the last bit. */

#include "native.h"
#include <float.h>
#include <stdlib.h>

/* Blanks both Pythons strip around a score that follows the field's last space. */
static int is_score_blank(unsigned char c) {
    return c == '\r' || c == '\v' || c == '\f';
}

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
    union {
        long double value;
        struct { unsigned long long mantissa; unsigned short top; } p;
    } bits;
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
PyObject *lexsub_parse_ranked(PyObject *Py_UNUSED(self), PyObject *args) {
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

/* gap_values(ranked, target_ids, gap_gold) -> list[float] | None: per instance, its GAP
 * (numerator / denominator), 0.0 where the denominator is not positive (skipped). */
PyObject *lexsub_gap_values(PyObject *Py_UNUSED(self), PyObject *args) {
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

/* coverage(ranked, target_ids, pools, gold_maps, distinct) -> (outside, outside_gold,
 * left_out): validation.py's count of ranked strings outside each instance's pool (credited
 * or not by its gold) and of pool candidates left out; ids of instances that rank no
 * candidate twice are added to ``distinct``. */
PyObject *lexsub_coverage(PyObject *Py_UNUSED(self), PyObject *args) {
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
