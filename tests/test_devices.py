"""``device=`` and ``--device``: checked in one place, refused in one line, models moved as asked."""

from __future__ import annotations

import pytest
import torch

from charwise.devices import check_device
from charwise.errors import ConfigError
from charwise.hybrid.model import HybridModel
from charwise.hybrid.st import CharwiseHybrid
from charwise.teachers import Teacher

NO_CUDA = not torch.cuda.is_available()


@pytest.fixture(scope="module")
def bert_teacher(tiny_bert_dir) -> Teacher:
    return Teacher.load(str(tiny_bert_dir))


def test_known_devices_are_torch_devices():
    assert check_device("cpu") == torch.device("cpu")
    assert check_device(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.parametrize("bad", ["gpu0", "", "cuda:x", 3.5])
def test_unknown_devices_are_one_line_errors(bad):
    with pytest.raises(ConfigError, match="unknown device") as info:
        check_device(bad)
    assert "\n" not in str(info.value)


@pytest.mark.skipif(not NO_CUDA, reason="CUDA is present here")
def test_cuda_without_cuda_is_refused():
    with pytest.raises(ConfigError, match="torch sees no CUDA device"):
        check_device("cuda:1")


def test_hybrid_model_goes_where_it_is_asked(bert_teacher, make_encoder):
    encoder = make_encoder("cnn", info=bert_teacher.describe(), dim=bert_teacher.dim)
    hybrid = HybridModel(bert_teacher.model, bert_teacher, encoder, "oov", device="cpu")
    assert {p.device.type for p in hybrid.parameters()} == {"cpu"}
    inputs = hybrid.prepare_texts(["the qzxv sat"])
    assert inputs.input_ids.device.type == "cpu"
    with pytest.raises(ConfigError, match="unknown device"):
        HybridModel(bert_teacher.model, bert_teacher, encoder, "oov", device="gpu0")


def test_sentence_module_takes_a_device(bert_teacher):
    hybrid = HybridModel(bert_teacher.model, bert_teacher, None, "none")
    module = CharwiseHybrid(hybrid=hybrid, device="cpu", max_length=None)
    assert {p.device.type for p in module.parameters()} == {"cpu"}
    with pytest.raises(ConfigError, match="unknown device"):
        CharwiseHybrid(hybrid=hybrid, device="gpu0", max_length=None)


@pytest.mark.parametrize("command", ["tag predict", "tag eval"])
def test_tag_commands_refuse_a_bad_device_before_loading(tmp_path, capsys, command):
    from charwise.cli import main

    text = tmp_path / "in.txt"
    text.write_text("the cat sat\n", encoding="utf-8")
    argv = [*command.split(), str(tmp_path / "no-tagger-here")]
    if command == "tag predict":
        argv.append(str(text))
    assert main([*argv, "--device", "gpu0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown device 'gpu0'" in err
