#pragma once
// Packing launch arguments into the parameter array cuLaunchKernel takes, checked against the
// entry's argument layout: the count, a pointer for every buffer, an integer for every integer
// scalar (equal to its value at the shape the kernel was found for: a kernel specialised for
// hidden=4096 must not be told hidden=2048), a number for every float. No GPU is needed.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "hone/kernel_cache/error.hpp"
#include "hone/kernel_cache/launch_expr.hpp"
#include "hone/kernel_cache/manifest.hpp"

namespace hone::kernel_cache {

/// One argument as the caller gives it, before it is converted to the kernel's parameter type.
struct ArgValue {
  enum class Kind { Pointer, Integer, Float } kind = Kind::Integer;
  const void* pointer = nullptr;
  std::int64_t integer = 0;
  double real = 0;
};

template <class T>
ArgValue arg_value(T v) {
  ArgValue a;
  if constexpr (std::is_pointer_v<T>) {
    a.kind = ArgValue::Kind::Pointer;
    a.pointer = static_cast<const void*>(v);
  } else if constexpr (std::is_null_pointer_v<T>) {
    a.kind = ArgValue::Kind::Pointer;
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    a.kind = ArgValue::Kind::Integer;
    a.integer = static_cast<std::int64_t>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    a.kind = ArgValue::Kind::Float;
    a.real = static_cast<double>(v);
  } else {
    static_assert(std::is_pointer_v<T>, "kernel arguments are pointers, integers or floating-point numbers");
  }
  return a;
}

/// The parameter values, each in its own 8-byte aligned slot, and the array of pointers to them
/// that cuLaunchKernel reads. Copying keeps `params` pointing into the copy.
struct PackedArgs {
  std::vector<std::uint64_t> slots;   // one per parameter, holding its bytes
  std::vector<std::size_t> sizes;     // bytes of each parameter
  std::vector<void*> params;

  PackedArgs() = default;
  PackedArgs(const PackedArgs& o) : slots(o.slots), sizes(o.sizes) { relink(); }
  PackedArgs& operator=(const PackedArgs& o) {
    slots = o.slots;
    sizes = o.sizes;
    relink();
    return *this;
  }
  void relink() {
    params.clear();
    for (auto& s : slots) params.push_back(&s);
  }
};

namespace detail {

// Bytes of a scalar parameter type; 0 when the loader does not know it.
inline std::size_t scalar_size(const std::string& t, bool& is_float, bool& is_signed) {
  is_float = t == "float" || t == "double";
  is_signed = t == "int" || t == "int32_t" || t == "long long" || t == "int64_t" || t == "long";
  if (t == "int" || t == "int32_t" || t == "unsigned" || t == "unsigned int" || t == "uint32_t" || t == "float") return 4;
  if (t == "long long" || t == "int64_t" || t == "long" || t == "unsigned long long" || t == "uint64_t" || t == "double") return 8;
  return 0;
}

}  // namespace detail

/// Packs `values` for `e` at `shape` (the shape the kernel was found for). Throws
/// KernelCacheError naming the entry and the argument on any mismatch.
inline PackedArgs pack_args(const CacheEntry& e, const std::vector<ArgValue>& values, const Shape& shape) {
  const std::string who = "kernel " + e.entry + " (" + e.label() + ")";
  if (e.args.empty()) throw KernelCacheError(who + ": the manifest gives no argument layout, so it cannot be launched safely");
  if (values.size() != e.args.size())
    throw KernelCacheError(who + " takes " + std::to_string(e.args.size()) + " arguments, got " + std::to_string(values.size()));
  PackedArgs p;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const ArgLayout& a = e.args[i];
    const ArgValue& v = values[i];
    const std::string arg = who + ": argument " + std::to_string(i) + " '" + a.name + "' (" + a.type + ")";
    std::uint64_t slot = 0;
    std::size_t size = 0;
    if (a.pointer()) {
      if (v.kind != ArgValue::Kind::Pointer) throw KernelCacheError(arg + " must be a device pointer");
      std::memcpy(&slot, &v.pointer, sizeof v.pointer);
      size = sizeof(void*);
    } else {
      bool is_float = false, is_signed = false;
      size = detail::scalar_size(a.type, is_float, is_signed);
      if (size == 0) throw KernelCacheError(arg + ": the loader does not know how to pass this type");
      if (is_float) {
        if (v.kind == ArgValue::Kind::Pointer) throw KernelCacheError(arg + " must be a number");
        const double x = v.kind == ArgValue::Kind::Float ? v.real : static_cast<double>(v.integer);
        if (size == 4) {
          const float f = static_cast<float>(x);
          std::memcpy(&slot, &f, 4);
        } else {
          std::memcpy(&slot, &x, 8);
        }
      } else {
        if (v.kind != ArgValue::Kind::Integer) throw KernelCacheError(arg + " must be an integer");
        const std::int64_t x = v.integer;
        if (size == 4 && (is_signed ? (x < std::numeric_limits<std::int32_t>::min() || x > std::numeric_limits<std::int32_t>::max())
                                    : (x < 0 || x > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))))
          throw KernelCacheError(arg + ": " + std::to_string(x) + " does not fit");
        if (!a.value.empty()) {
          const std::int64_t expected = eval_expr(a.value, shape);
          if (x != expected)
            throw KernelCacheError(arg + " is " + std::to_string(x) + ", but the kernel was found for " + a.value + " = " +
                                   std::to_string(expected) + " (find the kernel for the shape you launch)");
        }
        if (size == 4) {
          const std::uint32_t u = static_cast<std::uint32_t>(x);
          std::memcpy(&slot, &u, 4);
        } else {
          std::memcpy(&slot, &x, 8);
        }
      }
    }
    p.slots.push_back(slot);
    p.sizes.push_back(size);
  }
  p.relink();
  return p;
}

}  // namespace hone::kernel_cache
