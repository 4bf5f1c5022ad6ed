#pragma once
// Host code that a kernel's shared object would run as soon as it is loaded: the functions in its
// .init_array and .ctors sections beyond the one the C runtime itself puts there (frame_dummy,
// from crtbeginS.o). A CUDA kernel has no business running host code (a namespace-scope object
// with a constructor, an __attribute__((constructor)) function); the emu device refuses such an
// object before dlopen would run it, when it is built and again when it is loaded.
#include <cxxabi.h>
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace hone::emu {

struct ElfInitialisers {
  std::string error;               // the file is not a 64-bit ELF shared object we can read
  std::vector<std::string> user;   // what runs at load time besides the C runtime's own entries
};

namespace detail {

inline std::string demangled(const std::string& name) {
  // GCC's one function for all the namespace-scope constructors of a file, named after the file.
  if (name.rfind("_GLOBAL__sub_I_", 0) == 0) return "constructors of namespace-scope objects";
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// Entries the C runtime's start files put in .init_array themselves.
inline bool from_c_runtime(const std::string& symbol) { return symbol == "frame_dummy"; }

}  // namespace detail

inline ElfInitialisers elf_initialisers(const std::filesystem::path& path) {
  ElfInitialisers r;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fits = [&](std::uint64_t off, std::uint64_t size) { return off <= bytes.size() && size <= bytes.size() - off; };
  if (!fits(0, sizeof(Elf64_Ehdr)) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64) {
    r.error = path.string() + " is not a 64-bit ELF file";
    return r;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !fits(eh.e_shoff, std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr)) ||
      eh.e_shstrndx >= eh.e_shnum) {
    r.error = path.string() + " has no readable section table";
    return r;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), bytes.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  const Elf64_Shdr& names = sections[eh.e_shstrndx];
  auto section_name = [&](const Elf64_Shdr& s) -> std::string {
    if (!fits(names.sh_offset, names.sh_size) || s.sh_name >= names.sh_size) return "";
    const char* p = bytes.data() + names.sh_offset + s.sh_name;
    return std::string(p, strnlen(p, names.sh_size - s.sh_name));
  };

  // Function symbols by address, to name what an entry points at.
  std::vector<std::pair<std::uint64_t, std::string>> functions;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size() || !fits(s.sh_offset, s.sh_size)) continue;
    const Elf64_Shdr& strtab = sections[s.sh_link];
    if (!fits(strtab.sh_offset, strtab.sh_size)) continue;
    for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + s.sh_offset + off, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= strtab.sh_size) continue;
      const char* p = bytes.data() + strtab.sh_offset + sym.st_name;
      functions.emplace_back(sym.st_value, std::string(p, strnlen(p, strtab.sh_size - sym.st_name)));
    }
  }
  auto symbol_at = [&](std::uint64_t address) -> std::string {
    for (const auto& [value, name] : functions)
      if (value == address) return name;
    char hex[32];
    std::snprintf(hex, sizeof hex, "the function at 0x%llx", static_cast<unsigned long long>(address));
    return hex;
  };

  for (const Elf64_Shdr& s : sections) {
    const std::string name = section_name(s);
    const bool init_array = s.sh_type == SHT_INIT_ARRAY || name == ".init_array";
    if (!init_array && name != ".ctors") continue;
    if (s.sh_type == SHT_NOBITS || !fits(s.sh_offset, s.sh_size)) continue;
    for (std::uint64_t off = 0; off + 8 <= s.sh_size; off += 8) {
      std::uint64_t entry;
      std::memcpy(&entry, bytes.data() + s.sh_offset + off, 8);
      if (!init_array && (entry == 0 || entry == ~std::uint64_t{0})) continue;  // .ctors' own markers
      const std::string symbol = symbol_at(entry);
      if (!detail::from_c_runtime(symbol)) r.user.push_back(detail::demangled(symbol));
    }
  }
  return r;
}

/// "" when the object runs no host code of its own at load time, else why it may not be loaded.
inline std::string host_initialiser_problem(const std::filesystem::path& path) {
  const ElfInitialisers found = elf_initialisers(path);
  if (!found.error.empty()) return found.error;
  if (found.user.empty()) return "";
  std::string list;
  for (const auto& u : found.user) list += (list.empty() ? "" : ", ") + u;
  return "the kernel has host code that would run when it is loaded (static initialisers: " + list +
         "): a namespace-scope object with a constructor or an __attribute__((constructor)) function; "
         "kernels may not run host code";
}

}  // namespace hone::emu
