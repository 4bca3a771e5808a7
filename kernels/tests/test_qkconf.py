"""The quack config names and table (kernels/common/qkconf.py); no torch or quack needed."""
import pytest

from common import qkconf


def test_parse():
    assert qkconf.parse("128x192/2x1/pp") == qkconf.Config(128, 192, 2, 1, True)
    assert qkconf.parse("256x128/1x2/coop") == qkconf.Config(256, 128, 1, 2, False, 8)
    assert qkconf.parse("256x128/2x1/coop/s16").swizzle == 16


@pytest.mark.parametrize("bad", ["128x192/2x1", "128/2x1/pp", "128x192/2x1/ping", "axb/2x1/pp", "0x128/1x1/pp",
                                 "128x192/2x1/pp/s3", "128x192/2x1/pp/16", "128x192/2x1/pp/s8/x"])
def test_parse_rejects(bad):
    with pytest.raises(ValueError, match="ROOFTOOL_QUACK_TILE"):
        qkconf.parse(bad)


def test_name_for_table_knob_default():
    # the table: gated_ssm's gate GEMM at d=2048 is B*T x H*dk x d = 32768 x 2048 x 2048
    assert qkconf.name_for("gssm-gate", 16 * 2048, 16 * 128, 2048) == "128x256/2x1/coop"
    # the out GEMM has the same M, N, K and its own entry
    assert qkconf.name_for("gssm-out", 16 * 2048, 2048, 16 * 128) == "128x192/2x1/pp"
    # a shape not in the table: quack's default
    assert qkconf.name_for("gssm-gate", 4096, 2048, 2048) == "128x256/2x1/coop"
    assert qkconf.name_for("swiglu", 128, 8192, 7168) == qkconf.DEFAULT
    # the knob wins for its product only
    knob = "gssm-gate=128x128/1x1/pp, swiglu=64x256/1x1/pp"
    assert qkconf.name_for("gssm-gate", 16 * 2048, 16 * 128, 2048, knob) == "128x128/1x1/pp"
    assert qkconf.name_for("gssm-out", 16 * 2048, 2048, 16 * 128, knob) == "128x192/2x1/pp"


def test_knob_rejects():
    with pytest.raises(ValueError, match="product="):
        qkconf.overrides("128x128/1x1/pp")
    with pytest.raises(ValueError, match="schedule"):
        qkconf.overrides("swiglu=128x128/1x1/fast")


def test_table_shapes_follow_the_specs():
    # gated_ssm MVE: B=16,T=512,d=768,H=12,dk=64,n=16 -> in N = 3*H*dk + n*H = 2304 + 192
    assert ("gssm-in", 16 * 512, 3 * 12 * 64 + 16 * 12, 768) in qkconf.CONFIGS
    # gla_proj: B=8,T=4096,d=2048, Q,K,V,g of H*dk = 2048 columns each, alpha H*n = 256
    assert ("gla-wide", 8 * 4096, 4 * 2048 + 256, 2048) in qkconf.CONFIGS
    # swiglu: M=512, the interleaved weight is 2N = 8192 wide, K=7168
    assert ("swiglu", 512, 2 * 4096, 7168) in qkconf.CONFIGS
    for name in qkconf.CONFIGS.values():
        qkconf.parse(name)
