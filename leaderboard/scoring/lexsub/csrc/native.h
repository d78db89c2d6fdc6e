/* What the C readers and tallies of LS07/CoInCo files share (see native.py): blanks and word
 * characters as perl, Python 2 and Python 3 read them, score.pl's fixmisc and its rule for
 * which line counts, a small set of distinct objects, and the module's functions. */

#ifndef LEXSUB_NATIVE_H
#define LEXSUB_NATIVE_H

#define PY_SSIZE_T_CLEAN
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* memmem */
#endif
#include <Python.h>
#include <string.h>

/* Python 2's blanks (C isspace), what the key is stripped of. */
static inline int is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline int is_word(unsigned char c) {  /* perl's and Python's ASCII [\w.] */
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
           c == '.';
}

static inline int is_py_space(unsigned char c) {  /* str.strip()'s blanks among latin-1 */
    return Py_UNICODE_ISSPACE(c);
}

/* One ranking's distinct candidates, by hash and equality as a set keeps them (a file read by
 * parse_ranked gives each spelling one object: equal strings are mostly the same object). */
typedef struct { PyObject *key; Py_hash_t hash; } Entry;

static inline void release(PyObject **objects, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(objects[i]);
}

/* Adds key; 1 when it was new, 0 when an equal key is there, -1 on error. */
static inline int distinct_add(Entry *table, size_t mask, PyObject *key) {
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

/* 1 (with a ValueError set) where ``list`` does not hold ``n`` items. */
static inline int length_differs(PyObject *list, Py_ssize_t n, const char *message) {
    if (PyList_GET_SIZE(list) == n) return 0;
    PyErr_SetString(PyExc_ValueError, message);
    return 1;
}

/* Whether every score.pl match in ``matches`` (None, or a LineMatch: lemma, item, answers,
 * ...) has str parts and latin-1 answers: what the functions on answer lines read. */
static inline int latin1_matches(PyObject *matches) {
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

/* score.pl's fixmisc of one guess (s[0:n], latin-1) into out (room for n bytes): "non" and a
 * blank or hyphen -> "non", every hyphen -> space, the first apostrophe removed. */
static inline Py_ssize_t fix_guess(const unsigned char *s, Py_ssize_t n, unsigned char *out) {
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

/* score.pl's rule for an answer line ``m`` (a LineMatch, or None): the first line of an item
 * with gold credit counts. 1: it counts (its item added to ``done``, its norms in *norms);
 * 0: it does not; -1: an error. */
static inline int counted_line(PyObject *m, PyObject *done, PyObject *norms_of, PyObject **norms) {
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

/* A field of a line: bytes [start, start + len) of its text (or of a buffer). */
typedef struct { Py_ssize_t start, len; } Span;

/* Grows *spans (room for *room) to hold at least ``count + 1``; -1 (MemoryError) on failure. */
static inline int spans_room(Span **spans, Py_ssize_t *room, Py_ssize_t count) {
    Py_ssize_t grown;
    Span *more;
    if (count < *room) return 0;
    grown = *room ? 2 * *room : 64;
    more = PyMem_Realloc(*spans, grown * sizeof(Span));
    if (more == NULL) { PyErr_NoMemory(); return -1; }
    *spans = more;
    *room = grown;
    return 0;
}

/* score.pl's answers of an answer part text[0:end] (``end`` past its last non-';': perl's
 * split keeps no trailing empty field), each fixmisc'd into buf (room for ``end`` bytes) as
 * (*spans)[0:result]; -1 on error. */
static inline Py_ssize_t fixed_guesses(const unsigned char *text, Py_ssize_t end,
                                       unsigned char *buf, Span **spans, Py_ssize_t *room) {
    Py_ssize_t count = 0, start = 0, k = 0;
    while (end > 0) {
        const unsigned char *semi = memchr(text + start, ';', end - start);
        Py_ssize_t stop = semi ? semi - text : end;
        if (spans_room(spans, room, count) < 0) return -1;
        (*spans)[count].start = k;
        (*spans)[count].len = fix_guess(text + start, stop - start, buf + k);
        k += (*spans)[count++].len;
        if (semi == NULL) break;
        start = stop + 1;
    }
    return count;
}

static inline int same_span(const unsigned char *text, Span a, Span b) {
    return a.len == b.len && memcmp(text + a.start, text + b.start, a.len) == 0;
}

#define LINEAR_DISTINCT 32  /* up to this many fields, repeats are found by comparing bytes */

/* dict.fromkeys of the fields spans[0:n] of text: the first of each, in order, left in
 * spans[0:result]; -1 on error. Past LINEAR_DISTINCT fields, a table keyed by SipHash (the
 * process's key): a file cannot be written to make its fields collide. */
static inline Py_ssize_t distinct_spans(const unsigned char *text, Span *spans, Py_ssize_t n) {
    Py_ssize_t size = 0, j, k;
    size_t slots = 64, at, *table;
    if (n <= LINEAR_DISTINCT) {
        for (j = 0; j < n; j++) {
            for (k = 0; k < size && !same_span(text, spans[k], spans[j]); k++) {}
            if (k == size) spans[size++] = spans[j];
        }
        return size;
    }
    while (slots < (size_t)n * 2) slots *= 2;
    table = PyMem_Calloc(slots, sizeof(size_t));  /* 1 + an index into spans; 0: free */
    if (table == NULL) { PyErr_NoMemory(); return -1; }
    for (j = 0; j < n; j++) {
        at = (size_t)_Py_HashBytes(text + spans[j].start, spans[j].len) & (slots - 1);
        for (; table[at] && !same_span(text, spans[table[at] - 1], spans[j]);
             at = (at + 1) & (slots - 1)) {}
        if (table[at]) continue;
        spans[size] = spans[j];
        table[at] = (size_t)++size;
    }
    PyMem_Free(table);
    return size;
}

/* Whether ``key`` is the str of the latin-1 text s[0:len]: a key with a character past latin-1
 * equals no such text. */
static inline int key_is(PyObject *key, const unsigned char *s, Py_ssize_t len) {
    return PyUnicode_Check(key) && PyUnicode_KIND(key) == PyUnicode_1BYTE_KIND &&
           PyUnicode_GET_LENGTH(key) == len && memcmp(PyUnicode_1BYTE_DATA(key), s, len) == 0;
}

/* Dicts up to this size are searched key by key, comparing bytes: no str is made or hashed
 * for a lookup (which cost about 500 instructions an answer); larger ones by a str lookup. */
#define SCAN_KEYS 24

/* dict.get(s[0:len] read as latin-1): 1 and *found (borrowed) where there, 0 where not, -1 on
 * error. */
static inline int get_latin1(PyObject *dict, const unsigned char *s, Py_ssize_t len,
                             PyObject **found) {
    PyObject *key;
    Py_ssize_t pos = 0;
    if (PyDict_GET_SIZE(dict) <= SCAN_KEYS) {
        while (PyDict_Next(dict, &pos, &key, found))
            if (key_is(key, s, len)) return 1;
        return 0;
    }
    key = PyUnicode_DecodeLatin1((const char *)s, len, NULL);
    if (key == NULL) return -1;
    *found = PyDict_GetItemWithError(dict, key);
    Py_DECREF(key);
    if (*found == NULL) return PyErr_Occurred() ? -1 : 0;
    return 1;
}

PyObject *lexsub_parse_ranked(PyObject *self, PyObject *args);
PyObject *lexsub_gap_values(PyObject *self, PyObject *args);
PyObject *lexsub_coverage(PyObject *self, PyObject *args);
PyObject *lexsub_parse_lines(PyObject *self, PyObject *args);
PyObject *lexsub_first_answers(PyObject *self, PyObject *args);
PyObject *lexsub_line_entries(PyObject *self, PyObject *args);
PyObject *lexsub_scorepl_columns(PyObject *self, PyObject *args);
PyObject *lexsub_oot_repeats(PyObject *self, PyObject *args);
PyObject *lexsub_jabbari_rows(PyObject *self, PyObject *args);

#endif
