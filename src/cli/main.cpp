// The takt program: every subcommand comes from the registry (command.hpp).
#include "cli/command.hpp"

int main(int argc, char** argv) { return takt::cli::run_main(argc, argv); }
