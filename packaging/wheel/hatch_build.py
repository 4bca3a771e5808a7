"""Marks the rooftool wheel as platform-specific: it holds a Linux binary, so
its tag is py3-none-<platform> (ROOFTOOL_WHEEL_PLATFORM, e.g.
manylinux_2_34_x86_64, set by scripts/wheel.sh from the binary's glibc
symbols), not the py3-none-any of a pure-Python wheel."""
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        platform = os.environ.get("ROOFTOOL_WHEEL_PLATFORM", "")
        if not platform:
            raise RuntimeError("ROOFTOOL_WHEEL_PLATFORM is not set: build the wheel with `make wheel`")
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform}"
