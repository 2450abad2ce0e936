// The one-shot CLI's subcommands. Each takes the arguments after its name,
// prints its own --help, and returns the process exit code (cli_output.h).
#pragma once

#include <string>
#include <vector>

namespace heapleak::cli {

int run_stats(const std::vector<std::string>& argv);
int run_root(const std::vector<std::string>& argv);
int run_path(const std::vector<std::string>& argv);
int run_info(const std::vector<std::string>& argv);
int run_explain(const std::vector<std::string>& argv);
int run_report(const std::vector<std::string>& argv);
int run_owner(const std::vector<std::string>& argv);
int run_top(const std::vector<std::string>& argv);
int run_check(const std::vector<std::string>& argv);
int run_cache(const std::vector<std::string>& argv);
int run_redact(const std::vector<std::string>& argv);
int run_capture(const std::vector<std::string>& argv);
int run_fleet(const std::vector<std::string>& argv);
int run_export(const std::vector<std::string>& argv);

}  // namespace heapleak::cli
