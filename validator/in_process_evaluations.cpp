#include "validator/in_process_evaluations.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "validator/evaluation.hpp"

namespace hone {

namespace {

void write_line(int fd, const nlohmann::json& j) {
  const std::string data = j.dump() + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

int serve_evaluations_in_process(Device& device, std::FILE* requests, int reply_fd) {
  char* line = nullptr;
  std::size_t cap = 0;
  int status = 0;
  while (getline(&line, &cap, requests) > 0) {
    std::string stage = "request";
    nlohmann::json reply;
    try {
      auto request = nlohmann::json::parse(line).at("request").get<EvaluationRequest>();
      Verdict v = evaluate(device, request, [&](const std::string& s) {
        stage = s;
        write_line(reply_fd, {{"type", "stage"}, {"stage", s}});
      });
      if (device.lost()) v.detail["worker"] = "the fault left the GPU context unusable: this worker ends and is replaced";
      reply = {{"type", "verdict"}, {"verdict", v}};
    } catch (const std::exception& e) {
      reply = {{"type", "error"}, {"stage", stage}, {"message", e.what()}};
    }
    if (device.lost()) reply["exiting"] = true;
    write_line(reply_fd, reply);
    if (device.lost()) {
      status = 3;
      break;
    }
  }
  std::free(line);
  return status;
}

}  // namespace hone
