"""The C and C++ standard headers that gpuia gives the compiler when the include path has none.

The ``libclang`` wheel ships the compiler without its own freestanding headers (``stddef.h``,
``stdint.h``, ``stdarg.h``, ``limits.h``...), and an MSVC target finds no C library on a Linux
host. These headers are searched last (``-idirafter``), so a real one on the include path, or
the target's C library, wins. Their types come from the compiler's predefined macros
(``__SIZE_TYPE__``, ``__INT32_TYPE__``...), so sizes follow ``--target``.

The C++ containers (``<vector>``, ``<array>``, ``<initializer_list>``) are declarations only,
enough for the compiler to type-check how layouts are written: brace lists, ``push_back``,
``emplace_back`` and the other members (declared so that a change gpuia does not follow is seen
and refused, not dropped as an error). gpuia always reads C++ with these (``-nostdinc++``), as
the layout never depends on a standard library's internals.
"""

from __future__ import annotations

__all__ = ["STD_HEADERS"]

_STDDEF = """\
#pragma once
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#if !defined(__cplusplus) && !defined(_WCHAR_T_DEFINED)
typedef __WCHAR_TYPE__ wchar_t;
#endif
#ifndef NULL
#ifdef __cplusplus
#define NULL 0
#else
#define NULL ((void *)0)
#endif
#endif
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
"""

# name -> the compiler's predefined type macro
_INT_TYPES = {
    "int8_t": "__INT8_TYPE__", "int16_t": "__INT16_TYPE__", "int32_t": "__INT32_TYPE__",
    "int64_t": "__INT64_TYPE__", "uint8_t": "__UINT8_TYPE__", "uint16_t": "__UINT16_TYPE__",
    "uint32_t": "__UINT32_TYPE__", "uint64_t": "__UINT64_TYPE__", "intptr_t": "__INTPTR_TYPE__",
    "uintptr_t": "__UINTPTR_TYPE__", "intmax_t": "__INTMAX_TYPE__",
    "uintmax_t": "__UINTMAX_TYPE__",
}
_INT_LIMITS = {
    "INT8_MAX": "__INT8_MAX__", "INT16_MAX": "__INT16_MAX__", "INT32_MAX": "__INT32_MAX__",
    "INT64_MAX": "__INT64_MAX__", "UINT8_MAX": "__UINT8_MAX__", "UINT16_MAX": "__UINT16_MAX__",
    "UINT32_MAX": "__UINT32_MAX__", "UINT64_MAX": "__UINT64_MAX__", "SIZE_MAX": "__SIZE_MAX__",
}
_STDINT = "#pragma once\n" + "".join(
    f"typedef {macro} {name};\n" for name, macro in _INT_TYPES.items()) + "".join(
    f"#define {name} {macro}\n" for name, macro in _INT_LIMITS.items())

_LIMITS = """\
#pragma once
#ifndef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
"""

_STDARG = """\
#pragma once
typedef __builtin_va_list va_list;
typedef __builtin_va_list __gnuc_va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
"""

_STDBOOL = """\
#pragma once
#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
"""

_CSTDDEF = """\
#pragma once
#include <stddef.h>
namespace std {
using ::size_t;
using ::ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
}
"""

_CSTDINT = "#pragma once\n#include <stdint.h>\nnamespace std {\n" + "".join(
    f"using ::{name};\n" for name in _INT_TYPES) + "}\n"

# Clang checks std::initializer_list's shape: a class template whose members are a pointer to
# the first element and a length.
_INITIALIZER_LIST = """\
#pragma once
#include <cstddef>
namespace std {
template <class E> class initializer_list {
    const E *first_;
    size_t length_;
    constexpr initializer_list(const E *first, size_t length) : first_(first), length_(length) {}
public:
    constexpr initializer_list() : first_(nullptr), length_(0) {}
    constexpr size_t size() const { return length_; }
    constexpr const E *begin() const { return first_; }
    constexpr const E *end() const { return first_ + length_; }
};
}
"""

_ITERATOR = """\
#pragma once
#include <cstddef>
namespace std {
template <class T, size_t N> constexpr size_t size(const T (&)[N]) noexcept { return N; }
template <class C> constexpr auto size(const C &c) -> decltype(c.size()) { return c.size(); }
}
"""

_VECTOR = """\
#pragma once
#include <initializer_list>
#include <iterator>
namespace std {
template <class T> class vector {
public:
    typedef T value_type;
    typedef T *iterator;
    typedef const T *const_iterator;
    typedef size_t size_type;
    vector();
    explicit vector(size_t count);
    vector(size_t count, const T &value);
    vector(initializer_list<T> init);
    vector(const vector &other);
    template <class It> vector(It first, It last);
    vector &operator=(const vector &other);
    vector &operator=(initializer_list<T> init);
    void push_back(const T &value);
    void push_back(T &&value);
    template <class... Args> T &emplace_back(Args &&...args);
    template <class... Args> iterator emplace(const_iterator pos, Args &&...args);
    iterator insert(const_iterator pos, const T &value);
    iterator insert(const_iterator pos, size_t count, const T &value);
    iterator insert(const_iterator pos, initializer_list<T> init);
    template <class It> iterator insert(const_iterator pos, It first, It last);
    iterator erase(const_iterator pos);
    iterator erase(const_iterator first, const_iterator last);
    void assign(size_t count, const T &value);
    void assign(initializer_list<T> init);
    template <class It> void assign(It first, It last);
    void resize(size_t count);
    void resize(size_t count, const T &value);
    void reserve(size_t count);
    void pop_back();
    void clear();
    void swap(vector &other);
    void shrink_to_fit();
    T *data();
    const T *data() const;
    size_t size() const;
    size_t capacity() const;
    bool empty() const;
    T &operator[](size_t i);
    const T &operator[](size_t i) const;
    T &at(size_t i);
    const T &at(size_t i) const;
    T &front();
    T &back();
    iterator begin();
    iterator end();
    const_iterator begin() const;
    const_iterator end() const;
};
}
"""

_ARRAY = """\
#pragma once
#include <cstddef>
#include <iterator>
namespace std {
template <class T, size_t N> struct array {
    T elems_[N];
    typedef T value_type;
    T *data() { return elems_; }
    const T *data() const { return elems_; }
    constexpr size_t size() const { return N; }
    T &operator[](size_t i) { return elems_[i]; }
    const T &operator[](size_t i) const { return elems_[i]; }
    T *begin() { return elems_; }
    T *end() { return elems_ + N; }
    const T *begin() const { return elems_; }
    const T *end() const { return elems_ + N; }
};
}
"""

STD_HEADERS: dict[str, str] = {
    "stddef.h": _STDDEF, "stdint.h": _STDINT, "limits.h": _LIMITS, "stdarg.h": _STDARG,
    "stdbool.h": _STDBOOL, "cstddef": _CSTDDEF, "cstdint": _CSTDINT,
    "initializer_list": _INITIALIZER_LIST, "iterator": _ITERATOR, "vector": _VECTOR,
    "array": _ARRAY,
}
"""File name -> text of each fallback standard header."""
