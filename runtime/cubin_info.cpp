#include "runtime/cubin_info.hpp"

#include <elf.h>

#include <cstring>
#include <regex>
#include <stdexcept>

namespace hone {

namespace {

constexpr unsigned kMachineCuda = 190;  // EM_CUDA

template <typename T>
T read_at(const std::string& image, std::size_t offset, const char* what) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    throw std::invalid_argument(std::string("CUBIN truncated: its ") + what + " lies past the end of the image");
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::string string_at(const std::string& image, std::size_t table_offset, std::size_t table_size, std::size_t index) {
  if (index >= table_size || table_offset + index >= image.size()) return "";
  const char* start = image.data() + table_offset + index;
  const std::size_t limit = std::min(table_size - index, image.size() - table_offset - index);
  return std::string(start, strnlen(start, limit));
}

}  // namespace

CubinInfo read_cubin_info(const std::string& image) {
  if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    throw std::invalid_argument("not a CUBIN: no ELF header");
  const auto eh = read_at<Elf64_Ehdr>(image, 0, "ELF header");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) throw std::invalid_argument("not a CUBIN: not a 64-bit ELF image");
  if (eh.e_machine != kMachineCuda)
    throw std::invalid_argument("not a CUBIN: an ELF image for machine " + std::to_string(eh.e_machine) + ", not CUDA (190)");

  CubinInfo info;
  // The CUDA ELF ABI moved the SM number from the low byte of e_flags (ABI version 7 and before)
  // to the second byte (version 8, CUDA 12.8 and later).
  info.arch = eh.e_ident[EI_ABIVERSION] >= 8 ? static_cast<int>((eh.e_flags >> 8) & 0xff) : static_cast<int>(eh.e_flags & 0xff);
  if (info.arch == 0) throw std::invalid_argument("CUBIN names no architecture in its ELF flags");

  if (eh.e_shentsize != sizeof(Elf64_Shdr)) throw std::invalid_argument("CUBIN has section headers of an unexpected size");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (std::size_t i = 0; i < sections.size(); ++i)
    sections[i] = read_at<Elf64_Shdr>(image, eh.e_shoff + i * sizeof(Elf64_Shdr), "section header table");
  if (eh.e_shstrndx >= sections.size()) throw std::invalid_argument("CUBIN has no section name table");
  const Elf64_Shdr& names = sections[eh.e_shstrndx];

  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[s.sh_link];
    for (std::size_t k = 0; k * sizeof(Elf64_Sym) < s.sh_size; ++k) {
      const auto sym = read_at<Elf64_Sym>(image, s.sh_offset + k * sizeof(Elf64_Sym), "symbol table");
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || ELF64_ST_BIND(sym.st_info) != STB_GLOBAL) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size()) continue;
      // A kernel's code is in .text.<name>; device functions that are not entries live there too
      // only when they are global, which extern "C" __device__ functions rarely are.
      const std::string section = string_at(image, names.sh_offset, names.sh_size, sections[sym.st_shndx].sh_name);
      const std::string name = string_at(image, strings.sh_offset, strings.sh_size, sym.st_name);
      if (section == ".text." + name) info.entries.push_back(name);
    }
  }
  return info;
}

int ptx_target_arch(const std::string& ptx) {
  static const std::regex target(R"(^\s*\.target\s+sm_(\d+))", std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(ptx, m, target)) throw std::invalid_argument("PTX without a '.target sm_XX' line");
  return std::stoi(m[1]);
}

}  // namespace hone
