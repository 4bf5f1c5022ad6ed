// hone-worker: evaluates candidates on one device, one request at a time, in its own process.
// Requests arrive as JSON lines on fd 3; stage notices and the verdict leave as JSON lines on fd 4.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/device_select.hpp"
#include "runtime/fatal_fault.hpp"
#include "validator/evaluation.hpp"

namespace {

void send(FILE* out, const nlohmann::json& j) {
  std::string line = j.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string kind = "emu", arch = "sm_90";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--device") == 0) kind = argv[i + 1];
    else if (std::strcmp(argv[i], "--arch") == 0) arch = argv[i + 1];
  }
  FILE* in = fdopen(3, "r");
  FILE* out = fdopen(4, "w");
  if (!in || !out) {
    std::cerr << "hone-worker: runs under hone, which passes requests on fd 3 and reads replies on fd 4\n";
    return 2;
  }
  hone::set_fatal_fault_fd(4);
  std::unique_ptr<hone::Device> device;
  try {
    device = hone::open_device(kind, arch);
  } catch (const std::exception& e) {
    std::cerr << "hone-worker: " << e.what() << "\n";
    return 2;
  }

  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) {
    std::string stage = "request";
    try {
      auto msg = nlohmann::json::parse(line);
      auto request = msg.at("request").get<hone::EvaluationRequest>();
      hone::Verdict v = hone::evaluate(*device, request, [&](const std::string& s) {
        stage = s;
        send(out, {{"type", "stage"}, {"stage", s}});
      });
      send(out, {{"type", "verdict"}, {"verdict", v}});
    } catch (const std::exception& e) {
      send(out, {{"type", "error"}, {"stage", stage}, {"message", e.what()}});
    }
  }
  std::free(line);
  return 0;
}
