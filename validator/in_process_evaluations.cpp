#include "validator/in_process_evaluations.hpp"

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "validator/evaluation.hpp"
#include "validator/piped_child.hpp"

namespace hone {

int serve_evaluations_in_process(Device& device, std::FILE* requests, int reply_fd) {
  char* line = nullptr;
  std::size_t cap = 0;
  int status = 0;
  while (getline(&line, &cap, requests) > 0) {
    std::string stage = "request";
    nlohmann::json reply;
    try {
      auto request = nlohmann::json::parse(line).at("request").get<EvaluationRequest>();
      Verdict v = evaluate(
          device, request,
          [&](const std::string& s) {
            stage = s;
            write_all(reply_fd, nlohmann::json{{"type", "stage"}, {"stage", s}}.dump() + "\n");
          },
          [&] { write_all(reply_fd, nlohmann::json{{"type", "launch"}}.dump() + "\n"); });
      if (device.lost()) v.detail["worker"] = "the fault left the GPU context unusable: this worker ends and is replaced";
      reply = {{"type", "verdict"}, {"verdict", v}};
    } catch (const std::exception& e) {
      reply = {{"type", "error"}, {"stage", stage}, {"message", e.what()}};
    }
    if (device.lost()) reply["exiting"] = true;
    write_all(reply_fd, reply.dump() + "\n");
    if (device.lost()) {
      status = 3;
      break;
    }
  }
  std::free(line);
  return status;
}

}  // namespace hone
