"""The pinned corpus of public training code that uses GradScaler, shared by the recall and
precision benches (mutation_recall.py, precision_sweep.py, fix_commits.py).

Each repository is pinned by the commit of the snapshot it was read at and tagged with the
kind of code it is, so a result can be broken down by the shapes training code takes
(recipe toolkits, framework internals, one-file research scripts). Only names and commits
live here: the code is read from local git snapshots (`--mirror`) into scratch folders and
never copied into this repository.

Snapshots are git directories laid out as `MIRROR/<owner>+<name>/repo` (what the search
tool's fetch writes) or `MIRROR/<owner>/<name>/.git` (a plain clone).
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Iterable, Optional


class Kind(Enum):
    """What a repository is, for breaking results down by the shapes its training code takes."""

    SPEECH = "speech toolkit / ASR"
    TTS_GAN = "TTS, voice conversion, GAN"
    LLM = "LLM pretraining / fine-tuning"
    DETECTION = "detection / segmentation / tracking"
    VISION = "vision backbones, self-supervised, video"
    MULTIMODAL = "vision-language, retrieval, embeddings"
    DIFFUSION = "diffusion / generative image"
    NERF_3D = "NeRF / 3D / point clouds"
    RL = "reinforcement learning / robotics"
    FRAMEWORK = "training framework internals"
    RESEARCH = "one-off research repository / example"


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    commit: str  # the snapshot's HEAD when pinned
    kind: Kind
    original: bool = False  # one of the 35 the recall bench was first built and tuned on
    # added after issue 17's rule changes and recall run, to read the precision of the final
    # rules on kinds of code no rule was written against (not all of them use GradScaler)
    late: bool = False


K = Kind
REPOS: tuple[Repo, ...] = (
    # -- the 35 the recall bench started from (issue 11) ------------------------------------------
    Repo("Haian-Jin/LVSM", "2fea9242a941072c6263b96eb1b52f2a80503ce3", K.VISION, True),
    Repo("MCG-NJU/VideoMAE", "14ef8d856287c94ef1f985fe30f958eb4ec2c55d", K.VISION, True),
    Repo("Megvii-BaseDetection/YOLOX", "6ddff4824372906469a7fae2dc3206c7aa4bbaee", K.DETECTION, True),
    Repo("WongKinYiu/yolov7", "a207844b1ce82d204ab36d87d496728d3d2348e7", K.DETECTION, True),
    Repo("WongKinYiu/yolov9", "5b1ea9a8b3f0ffe4fe0e203ec6232d788bb3fcff", K.DETECTION, True),
    Repo("apple/ml-cvnets", "77717569ab4a852614dae01f010b32b820cb33bb", K.VISION, True),
    Repo("ashawkey/stable-dreamfusion", "5550b91862a3af7842bb04875b7f1211e5095a63", K.NERF_3D, True),
    Repo("ashawkey/torch-ngp", "b6e080468925f0bb44827b4f8f0ed08291dcf8a9", K.NERF_3D, True),
    Repo("coqui-ai/Trainer", "7704b0f3fdeac1d967a11b728e4cd125f5fa322f", K.FRAMEWORK, True),
    Repo("facebookresearch/ConvNeXt", "048efcea897d999aed302f2639b6270aedf8d4c8", K.VISION, True),
    Repo("facebookresearch/SlowFast", "287ec0076846560f44a9327e931a5a2360240533", K.VISION, True),
    Repo("facebookresearch/audiocraft", "896ec7c47f5e5d1e5aa1e4b260c4405328bf009d", K.TTS_GAN, True),
    Repo("facebookresearch/detectron2", "02b5c4e295e990042a714712c21dc79b731e8833", K.DETECTION, True),
    Repo("facebookresearch/dino", "7c446df5b9f45747937fb0d72314eb9f7b66930a", K.VISION, True),
    Repo("facebookresearch/dinov2", "b8931f7bf91576930313be2c6d6af376033b35f0", K.VISION, True),
    Repo("facebookresearch/ijepa", "52c1ae95d05f743e000e8f10a1f3a79b10cff048", K.VISION, True),
    Repo("facebookresearch/mae", "efb2a8062c206524e35e47d04501ed4f544c0ae8", K.VISION, True),
    Repo("facebookresearch/moco-v3", "c349e6e24f40d3fedb22d973f92defa4cedf37a7", K.VISION, True),
    Repo("facebookresearch/pycls", "5719de641657c251f807c20a1fcf8ef6f4b60144", K.VISION, True),
    Repo("facebookresearch/sam2", "2b90b9f5ceec907a1c18123530e92e794ad901a4", K.DETECTION, True),
    Repo("hkchengrex/XMem", "f3b841d50df058910bbf690229ddc15fb1aef7d6", K.DETECTION, True),
    Repo("huggingface/pytorch-image-models", "aa4b5850c1543fa488abf260f18390eda46cf85d", K.VISION, True),
    Repo("jaywalnut310/vits", "2e561ba58618d021b5b8323d3765880f7e0ecfdb", K.TTS_GAN, True),
    Repo("karpathy/nanoGPT", "3adf61e154c3fe3fca428ad6bc3818b27a3b8291", K.LLM, True),
    Repo("microsoft/Swin-Transformer", "f82860bfb5225915aca09c3227159ee9e1df874d", K.VISION, True),
    Repo("milesial/Pytorch-UNet", "21d7850f2af30a9695bbeea75f3136aa538cfc4a", K.DETECTION, True),
    Repo("mindee/doctr", "8a88feaf7ff5140e5f4c5c860cb9414dda128656", K.DETECTION, True),
    Repo("mlfoundations/open_clip", "89fb801f1e6087880e951fc8354b8a2077b79c6d", K.MULTIMODAL, True),
    Repo("nerfstudio-project/nerfstudio", "50e0e3c70c775e89333256213363badbf074f29d", K.NERF_3D, True),
    Repo("open-mmlab/mmengine", "254342938d9bde1775c39ea7d5181c5d294026c4", K.FRAMEWORK, True),
    Repo("princeton-vl/RAFT", "2888e15a51fa41140771d3f498ed8023cff098d1", K.RESEARCH, True),
    Repo("pytorch/examples", "77f55b912142e11fcfdf5b530231fb9c52f181e8", K.RESEARCH, True),
    Repo("salesforce/LAVIS", "506965b9c4a18c1e565bd32acaccabe0198433f7", K.MULTIMODAL, True),
    Repo("speechbrain/speechbrain", "9c826ef3937bac885c8a6ca86c6889a30f256fb5", K.SPEECH, True),
    Repo("ultralytics/yolov5", "5081342f04fb287fc2e5f2b5a4e06752b7937b1c", K.DETECTION, True),
    # -- speech toolkits (recipes by the hundred) ----------------------------------------------
    Repo("k2-fsa/icefall", "36e0420c7e3e849a25b3d24dbf913c424f3d23c9", K.SPEECH),
    Repo("wenet-e2e/wenet", "015469960db73eb19c49a48c020d5ac9db69bae5", K.SPEECH),
    Repo("wenet-e2e/wespeaker", "dfa741957e5c11f477623b6e583d67d0af25ee88", K.SPEECH),
    Repo("modelscope/FunASR", "3c58cb56a56598232c3efffa15d313d7e82a4307", K.SPEECH),
    Repo("facebookresearch/fairseq", "3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99", K.SPEECH),
    Repo("lifeiteng/vall-e", "9c69096d603ce13174fb5cb025f185e2e9b36ac7", K.SPEECH),
    # -- TTS, voice conversion, GANs -----------------------------------------------------------
    Repo("FunAudioLLM/CosyVoice", "ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40", K.TTS_GAN),
    Repo("RVC-Project/Retrieval-based-Voice-Conversion-WebUI", "4338f12c3c28c80b3ac015e2d0df66c41592746d", K.TTS_GAN),
    Repo("svc-develop-team/so-vits-svc", "730930d337d171479eadf305f96cbed4bb393e77", K.TTS_GAN),
    Repo("fishaudio/Bert-VITS2", "8f7fbd8c4770965225d258db548da27dc8dd934c", K.TTS_GAN),
    Repo("myshell-ai/MeloTTS", "209145371cff8fc3bd60d7be902ea69cbdb7965a", K.TTS_GAN),
    Repo("p0p4k/vits2_pytorch", "1f4f3790568180f8dec4419d5cad5d0877b034bb", K.TTS_GAN),
    Repo("Plachtaa/VITS-fast-fine-tuning", "8d341c7215f7770e81e6ac4486602179883d09af", K.TTS_GAN),
    Repo("yxlllc/DDSP-SVC", "88f157c03dfea4855e9b7101897bac174fd9b53d", K.TTS_GAN),
    Repo("jasonppy/VoiceCraft", "a702dfd2ced6d4fd6b04bdc160c832c6efc8f6c5", K.TTS_GAN),
    Repo("lucidrains/lightweight-gan", "efbec4570b7cb715e05058eccc518dc1a5753523", K.TTS_GAN),
    # -- LLM pretraining and fine-tuning -------------------------------------------------------
    Repo("NVIDIA/Megatron-LM", "d98e8a64ddf34856e74b24714e3bedb2f5a39553", K.LLM),
    Repo("bigscience-workshop/Megatron-DeepSpeed", "8387ae17c4704f6579f88a84500b535d19d7fbbf", K.LLM),
    Repo("meta-llama/llama-recipes", "faae2fd877995430906e1d0904131ecdaa89a604", K.LLM),
    Repo("OpenGVLab/LLaMA-Adapter", "521a09da84f70f6913d54b7421afa24010319e47", K.LLM),
    Repo("Vision-CAIR/MiniGPT-4", "d94738a7626ec43eba6c2cddf3cd2043f1a9689a", K.LLM),
    # -- detection, segmentation, tracking -----------------------------------------------------
    Repo("meituan/YOLOv6", "e86a483f3f6bded25d45970b56831345a99744a4", K.DETECTION),
    Repo("lyuwenyu/RT-DETR", "068dfde65f2667ad6555883c69d73de886518cad", K.DETECTION),
    Repo("IDEA-Research/DINO", "faa8520fe9604c23ad65a48bc583550a44c0e3ab", K.DETECTION),
    Repo("IDEA-Research/detrex", "e244e6c3da3e84566728c52c21fb061d23ce0e2f", K.DETECTION),
    Repo("ultralytics/yolov3", "97b87b1347d6d927d27227d2225140da38e4d308", K.DETECTION),
    Repo("facebookresearch/Detic", "436cda2a2347df60a7c66daca0e8c59f93dc5e79", K.DETECTION),
    Repo("facebookresearch/CutLER", "cca0a270cf68399efc8fd50df426b6d806e39416", K.DETECTION),
    Repo("hkchengrex/Cutie", "ec5cdd4cf16f75c73ad785a2f96fb97dbad4125a", K.DETECTION),
    Repo("OpenGVLab/InternImage", "31c962dc6c1ceb23e580772f7daaa6944694fbe6", K.DETECTION),
    Repo("Deci-AI/super-gradients", "e0ccacf8868ffa1296fa4f8407c03d2bc227312c", K.DETECTION),
    Repo("Pointcept/Pointcept", "d74c646db6abec569d0f23e0c34e7ddfce142789", K.NERF_3D),
    # -- vision backbones, self-supervised, video ----------------------------------------------
    Repo("facebookresearch/ConvNeXt-V2", "2553895753323c6fe0b2bf390683f5ea358a42b9", K.VISION),
    Repo("facebookresearch/barlowtwins", "8e8d284ca0bc02f88b92328e53f9b901e86b4a3c", K.VISION),
    Repo("facebookresearch/jepa", "51c59d518fc63c08464af6de585f78ac0c7ed4d5", K.VISION),
    Repo("facebookresearch/vissl", "09270ed25a6c2cf71263d955b64cbe076d34ac45", K.VISION),
    Repo("OpenGVLab/VideoMAEv2", "29eab1e8a588d1b3ec0cdec7b03a86cca491b74b", K.VISION),
    Repo("OpenGVLab/InternVideo", "3965eef16e2dadd0ea6c8d0cc29c8a3039df52e3", K.VISION),
    Repo("baaivision/EVA", "5623d08bb08a8268c7bc18e1d9b8b4bd651fe4d9", K.VISION),
    Repo("microsoft/Cream", "4a13c4091e78f9abd2160e7e01c02e48c1cf8fb9", K.VISION),
    Repo("mit-han-lab/efficientvit", "de7d7733cc0329f391b33f1f459271562ec27bd5", K.VISION),
    Repo("hustvl/Vim", "dd0358ad1e42701f22afbefa0717cc8825cf9f45", K.VISION),
    Repo("MzeroMiko/VMamba", "2ed52ead062a51a64521ed3871d52914bf532876", K.VISION),
    Repo("Alibaba-MIIL/ImageNet21K", "6e4c6a45a79df46f7452d3ca87068c7f177979b2", K.VISION),
    Repo("Alibaba-MIIL/ASL", "8c9e0bd8d5d450cf19093363fc08aa7244ad4408", K.VISION),
    # -- vision-language, retrieval, embeddings ------------------------------------------------
    Repo("facebookresearch/SLIP", "c6faf5d03cbfa7d529d210779f859cd3dddec09a", K.MULTIMODAL),
    Repo("KaiyangZhou/CoOp", "ff61507c790454bce7c5052c3ac39e60772f1f89", K.MULTIMODAL),
    Repo("muzairkhattak/multimodal-prompt-learning", "69bce21ae8eda80ad6187534b2dce09cf6c59e17", K.MULTIMODAL),
    Repo("stanford-futuredata/ColBERT", "501c29d9e0b7f7b393e36c4177ec2b141a253114", K.MULTIMODAL),
    Repo("UKPLab/sentence-transformers", "85ec64559f4414aa536eca4bf53538291e0a333f", K.MULTIMODAL),
    Repo("facebookresearch/mmf", "b0ffc7fba39f210f833c127362146aec01a2f259", K.MULTIMODAL),
    # -- diffusion and generative image --------------------------------------------------------
    Repo("FoundationVision/VAR", "78b95394fc5896192e3a003e4b295f8ea743c48f", K.DIFFUSION),
    Repo("FoundationVision/LlamaGen", "ce98ec41803a74a90ce68c40ababa9eaeffeb4ec", K.DIFFUSION),
    Repo("LTH14/mar", "fe470ac24afbee924668d8c5c83e9fec60af3a73", K.DIFFUSION),
    Repo("LTH14/fractalgen", "c7d099043dd987ae7742a7f8c8f1cab71023ba0e", K.DIFFUSION),
    Repo("lucidrains/imagen-pytorch", "c166739b03b06fbc2e7c00116ffc81724626ad08", K.DIFFUSION),
    # -- reinforcement learning, robotics ------------------------------------------------------
    Repo("NM512/dreamerv3-torch", "6ef8646d807cd10ce0c88e10a7e943211e7fc44c", K.RL),
    Repo("YeWR/EfficientZero", "468bb0309f6d5a632a53da9c7d329f88fc9ebf8e", K.RL),
    Repo("jurgisp/pydreamer", "8a4ea85a925b57ddf24a221b41dfb3257f89d63a", K.RL),
    Repo("huggingface/lerobot", "7427f31801f944f5ec9ce53cda02862ce7d1638b", K.RL),
    Repo("pytorch/rl", "ae9719f17b1517af5c2523a36c4616f003ee55cf", K.RL),
    # -- training framework internals ----------------------------------------------------------
    Repo("huggingface/accelerate", "16cb6eb80dd9aa8b4df1a63ef57863e455d53b83", K.FRAMEWORK),
    Repo("Lightning-AI/pytorch-lightning", "7f0c3436cd3f6ad3753125672024fc415cbcb414", K.FRAMEWORK),
    Repo("mosaicml/composer", "6405188805a0054b4551ec49e4919c54c971d0e8", K.FRAMEWORK),
    Repo("pytorch/ignite", "de08e799cfb55a6cf4aa778575d6bad725385453", K.FRAMEWORK),
    Repo("pytorch/tnt", "b83990d2e1c32ea78e49f5d464516abc26db1848", K.FRAMEWORK),
    Repo("Project-MONAI/MONAI", "d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83", K.FRAMEWORK),
    Repo("facebookresearch/ClassyVision", "08a82e88fcfa143933832994ace2424c03dd43b8", K.FRAMEWORK),
    Repo("facebookresearch/fairscale", "146f160241651e1211c4247979f159a4ef43b54a", K.FRAMEWORK),
    Repo("allenai/allennlp", "80fb6061e568cb9d6ab5d45b661e86eb61b92c82", K.FRAMEWORK),
    Repo("hpcaitech/ColossalAI", "4f9953be335ef371b3848719ddafe596c01ecd37", K.FRAMEWORK),
    # -- added late (see Repo.late): LLM stacks, framework internals, TTS/GANs, diffusion, --------
    #    detection, vision, vision-language, time series and one-off research code
    Repo("Alpha-VLLM/LLaMA2-Accessory", "3777c43940ddfb45d3bc1046b118ca4401747ee2", K.LLM, late=True),
    Repo("Lightning-AI/litgpt", "26857050fe3ff627cd714fe92f5838f51a3d5efa", K.LLM, late=True),
    Repo("allenai/OLMo", "59a53e3f68e546330ca5a99ec626e58f9ab96494", K.LLM, late=True),
    Repo("huggingface/nanotron", "2411b022a75fb7f7561a1bb4166706da5e1b76de", K.LLM, late=True),
    Repo("mosaicml/llm-foundry", "8c8dd48f72168c5d51e2f7b151595892a8fba43d", K.LLM, late=True),
    Repo("pytorch/torchtitan", "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a", K.LLM, late=True),
    Repo("pytorch/torchtune", "bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1", K.LLM, late=True),
    Repo("NVIDIA/TransformerEngine", "d0067d0da6cb01811b8072a7d304f0e00344ce2b", K.FRAMEWORK, late=True),
    Repo("NVIDIA/apex", "6424da3b4faa6c8f062da4a48c424fff3f02d42d", K.FRAMEWORK, late=True),
    Repo("OpenNMT/OpenNMT-py", "97111d97551c24857076a4102eabdb468b35cff4", K.FRAMEWORK, late=True),
    Repo("pyg-team/pytorch_geometric", "5c6461b2305ad068a6d61165b3c55852a11aaa41", K.FRAMEWORK, late=True),
    Repo("pytorch/torchrec", "a48cef79ebc333da92af1311c04b041ee21a8e75", K.FRAMEWORK, late=True),
    Repo("NVIDIA/tacotron2", "185cd24e046cc1304b4f8e564734d2498c6e2e6f", K.TTS_GAN, late=True),
    Repo("RVC-Boss/GPT-SoVITS", "48b1a0169a28582a8984402f82cf438d3bfa6aca", K.TTS_GAN, late=True),
    Repo("yl4579/StyleTTS2", "5cedc71c333f8d8b8551ca59378bdcc7af4c9529", K.TTS_GAN, late=True),
    Repo("rosinality/stylegan2-pytorch", "bef283a1c24087da704d16c30abc8e36e63efa0e", K.TTS_GAN, late=True),
    Repo("facebookresearch/DiT", "ed81ce2229091fd4ecc9a223645f95cf379d582b", K.DIFFUSION, late=True),
    Repo("hpcaitech/Open-Sora", "7ad6a96a135feb81f755c84fb391818718f6beb2", K.DIFFUSION, late=True),
    Repo("kohya-ss/sd-scripts", "48d368fa557731ad0488c07304dfeba8c07910eb", K.DIFFUSION, late=True),
    Repo("lucidrains/DALLE2-pytorch", "680dfc4d93b70f9ab23c814a22ca18017a738ef6", K.DIFFUSION, late=True),
    Repo("lucidrains/denoising-diffusion-pytorch", "faed4db28e724735323fa91c70aa9b28a6e1cbac", K.DIFFUSION, late=True),
    Repo("openai/guided-diffusion", "22e0df8183507e13a7813f8d38d51b072ca1e67c", K.DIFFUSION, late=True),
    Repo("openai/improved-diffusion", "1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5", K.DIFFUSION, late=True),
    Repo("facebookresearch/Mask2Former", "9b0651c6c1d5b3af2e6da0589b719c514ec0d69a", K.DETECTION, late=True),
    Repo("facebookresearch/detr", "29901c51d7fe8712168b8d0d64351170bc0f83e0", K.DETECTION, late=True),
    Repo("DepthAnything/Depth-Anything-V2", "a561b849ebae10a6f5ef49e26c83cbbcd36c71bf", K.VISION, late=True),
    Repo("xinntao/BasicSR", "d21eac885b6de90a7adef7cc59e937dbdbb200b1", K.VISION, late=True),
    Repo("haotian-liu/LLaVA", "c121f0432da27facab705978f83c4ada465e46fd", K.MULTIMODAL, late=True),
    Repo("mlfoundations/open_flamingo", "655f693fbfa04cd6e9a987d960654624d48917cf", K.MULTIMODAL, late=True),
    Repo("salesforce/BLIP", "056a169437371659074aa2732649d5de3bffb4a8", K.MULTIMODAL, late=True),
    Repo("karpathy/llm.c", "f1e2ace651495b74ae22d45d1723443fd00ecd3a", K.RESEARCH, late=True),
    Repo("state-spaces/mamba", "e9594ce1c732d97440f0332fdc43170a2294dbfa", K.RESEARCH, late=True),
    Repo("thuml/Autoformer", "51c7d416ae120b805fd5beef2f4ccf7de496a6ff", K.RESEARCH, late=True),
    Repo("thuml/Time-Series-Library", "4e938a1767106324dd753b2a44832bf870a0252e", K.RESEARCH, late=True),
    Repo("zhouhaoyi/Informer2020", "29f2a739226a509202a092b464163da81fa74960", K.RESEARCH, late=True),
    # -- added later still (stop 24), read only after the rules of that stop were written ----------
    Repo("NVIDIA/DeepLearningExamples", "729963dd47e7c8bd462ad10bfac7a7b0b604e6dd", K.RESEARCH, late=True),
    Repo("microsoft/DeepSpeedExamples", "83757d9c937daabd1089a08051061706cb73900d", K.LLM, late=True),
    Repo("NVIDIA/BigVGAN", "7d2b454564a6c7d014227f635b7423881f14bdac", K.TTS_GAN, late=True),
    Repo("PKU-YuanGroup/Open-Sora-Plan", "f7fa604f4e3a523d6b973e4c89a5620ed1aff65a", K.DIFFUSION, late=True),
    Repo("NVlabs/edm", "008a4e5316c8e3bfe61a62f874bddba254295afb", K.DIFFUSION, late=True),
    Repo("facebookresearch/deit", "7e160fe43f0252d17191b71cbb5826254114ea5b", K.VISION, late=True),
    Repo("facebookresearch/vicreg", "4e12602fd495af83efd1631fbe82523e6db092e0", K.VISION, late=True),
    Repo("facebookresearch/pytorchvideo", "f3142bb05cdb56af0704ab6f0adfb0c7bbafe4a0", K.VISION, late=True),
    Repo("salesforce/ALBEF", "b9727e43c3040491774d1b22cc27718aa7772fac", K.MULTIMODAL, late=True),
    Repo("clovaai/donut", "4cfcf972560e1a0f26eb3e294c8fc88a0d336626", K.MULTIMODAL, late=True),
    Repo("open-mmlab/mmcv", "a8073c74bf83d62ec36a103f835faa4837fb6585", K.FRAMEWORK, late=True),
    # -- and a second batch, read after the first batch's fixes ------------------------------------
    Repo("MIC-DKFZ/nnUNet", "0e495086eb108ff79afe106291e8c15bd2f2bc3a", K.FRAMEWORK, late=True),
    Repo("yuqinie98/PatchTST", "204c21efe0b39603ad6e2ca640ef5896646ab1a9", K.RESEARCH, late=True),
    Repo("JaidedAI/EasyOCR", "c4f3cd7225efd4f85451bd8b4a7646ae9a092420", K.DETECTION, late=True),
    Repo("facebookresearch/demucs", "e976d93ecc3865e5757426930257e200846a520a", K.TTS_GAN, late=True),
    Repo("rwightman/efficientdet-pytorch", "c6dff775a36cea0bf9b76c58e59f936411c5ce01", K.DETECTION, late=True),
    Repo("microsoft/LoRA", "c4593f060e6a368d7bb5af5273b8e42810cdef90", K.LLM, late=True),
    Repo("opendilab/DI-engine", "d0b21d065b2d80317cc16b28a95301be8871d950", K.RL, late=True),
    Repo("TencentARC/GFPGAN", "7552a7791caad982045a7bbe5634bbf1cd5c8679", K.TTS_GAN, late=True),
    Repo("cszn/KAIR", "fc1732f4a4514e42ce15e5b3a1e18c828af47a1e", K.VISION, late=True),
    Repo("facebookresearch/mae_st", "c5dec1bc01062097906ea67fe47935ec33fd46df", K.VISION, late=True),
    Repo("facebookresearch/msn", "4388dc1eadbe3042b85d3296d41b9b207656e043", K.VISION, late=True),
    # -- stop 25: twenty more, linted and mutated with the rules as they stood when fetched ----------
    Repo("bytedance/ibot", "da316d82636a7a7356835ef224b13d5f3ace0489", K.VISION, late=True),
    Repo("keyu-tian/SparK", "a63e386f8e5186bc07ad7fce86e06b08f48a61ea", K.VISION, late=True),
    Repo("OFA-Sys/Chinese-CLIP", "31863c707501bf1605d36842f43deb78793dbc5d", K.MULTIMODAL, late=True),
    Repo("LTH14/rcg", "0c4433c1d7fed93ed0dc81a6bde2acfe335d3798", K.DIFFUSION, late=True),
    Repo("willisma/SiT", "947f95bd3a510e9af441d38c1e9f72e0eee873c5", K.DIFFUSION, late=True),
    Repo("microsoft/GLIP", "9dda9558c1ef59bb6cdc8e896e2bcab775a68ff0", K.DETECTION, late=True),
    Repo("hustvl/YOLOS", "5717fc29d727dab84ad585c56457b4de1225eddc", K.DETECTION, late=True),
    Repo("openai/consistency_models", "e32b69ee436d518377db86fb2127a3972d0d8716", K.DIFFUSION, late=True),
    Repo("open-mmlab/Amphion", "d3de90f02e7f1c7dbc24b04d52fe1b8ef438effe", K.TTS_GAN, late=True),
    Repo("sail-sg/poolformer", "a075575b8b3dc3c76ecc5c49985d156167372bfa", K.VISION, late=True),
    Repo("facebookresearch/hiera", "b12b842542ee5c757fcfec8c41f6b56fcbe89b65", K.VISION, late=True),
    Repo("xinyu1205/recognize-anything", "7cb804a8609e9f4b1a50b7f31436d2df40bb9481", K.MULTIMODAL, late=True),
    Repo("zylo117/Yet-Another-EfficientDet-Pytorch", "15403b5371a64defb2a7c74e162c6e880a7f462c", K.DETECTION, late=True),
    Repo("MCG-NJU/MixFormer", "8b87088f45af02c614a277176c63181261e93de3", K.DETECTION, late=True),
    Repo("jzhang38/TinyLlama", "bf122247c486b6b897050e98cbb7bedae8eeba73", K.LLM, late=True),
    Repo("karpathy/nanochat", "92d63d4e8bb4df75c3b71618f31ddde2378b2bcd", K.LLM, late=True),
    Repo("microsoft/SimMIM", "d3e29bcac950b83edc34ca33fe4404f38309052c", K.VISION, late=True),
    Repo("facebookresearch/ImageBind", "53680b02d7e37b19b124fa37bae4b6c98c38f5be", K.MULTIMODAL, late=True),
    Repo("Visual-Attention-Network/VAN-Classification", "e19779b53a1b0828b51ecb4412d577541aee83a7", K.VISION, late=True),
    Repo("ViTAE-Transformer/ViTPose", "c050ed29112da7704797cc1a65af0234b525010d", K.DETECTION, late=True),
    # -- and a second batch of fifteen, linted with the rules after the first batch's fixes --------
    Repo("mlfoundations/open_lm", "9bb92ef1689333534b7057942a20d18a46d1fa52", K.LLM, late=True),
    Repo("ifzhang/ByteTrack", "d1bf0191adff59bc8fcfeaa0b33d3d1642552a99", K.DETECTION, late=True),
    Repo("Project-MONAI/tutorials", "b3c6c998c931d78b61c4d32b37f962a987400f8a", K.RESEARCH, late=True),
    Repo("descriptinc/descript-audio-codec", "c7cfc5d2647e26471dc394f95846a0830e7bec34", K.TTS_GAN, late=True),
    Repo("LAION-AI/CLAP", "1fd4c37df5ffbfcfbad5415c170bc66cf94c9994", K.MULTIMODAL, late=True),
    Repo("facebookresearch/TimeSformer", "a5ef29a7b7264baff199a30b3306ac27de901133", K.VISION, late=True),
    Repo("cloneofsimo/lora", "d84074b3e3496f1cfa8a3f49b8b9972ef463b483", K.DIFFUSION, late=True),
    Repo("Lightning-AI/lit-llama", "2a464de2a1d2f266614d15091d3d7f30330c3ede", K.LLM, late=True),
    Repo("facebookresearch/lingua", "437d680e521873bb5971067148a69587790da853", K.LLM, late=True),
    Repo("facebookresearch/MetaCLIP", "f47f7841f6a91cc5676729a3d125519393d87d1e", K.MULTIMODAL, late=True),
    Repo("Sense-X/UniFormer", "52a0415e4e0dda880fab8ffbc710e4d8e171149d", K.VISION, late=True),
    Repo("megvii-research/NAFNet", "2b4af71ebe098a92a75910c233a3965a3e93ede4", K.VISION, late=True),
    Repo("facebookresearch/dinov3", "6876159a11b4df116f30f667f8c9888617df0751", K.VISION, late=True),
    Repo("NVlabs/MambaVision", "7860a506b2eb844eaaae676f08461ce8c3c26f43", K.VISION, late=True),
    Repo("hustvl/YOLOP", "8d8f68df318c71f01d6f813c024df646c7d1978f", K.DETECTION, late=True),
    # -- stop 26: twenty-six more (speech/TTS, LLM pretraining, diffusion, benchmarks), linted and
    # mutated with the rules of main a976a25 before any change of this stop --------------------------
    Repo("coqui-ai/TTS", "dbf1a08a0d4e47fdad6172e433eeb34bc6b13b4e", K.TTS_GAN, late=True),
    Repo("mlcommons/training", "aa344c7fb900e82ed19fb94aebfed50c63ab2204", K.RESEARCH, late=True),
    Repo("EleutherAI/gpt-neox", "ea7aefd8f8e183256992d9fede4d7c71a46d67a5", K.LLM, late=True),
    Repo("CompVis/latent-diffusion", "a506df5756472e2ebaf9078affdde2c4f1502cd4", K.DIFFUSION, late=True),
    Repo("Stability-AI/generative-models", "0ad7de9a5cb53fd63d6d30a4f385485e72e08597", K.DIFFUSION, late=True),
    Repo("NVlabs/stylegan3", "c233a919a6faee6e36a316ddd4eddababad1adf9", K.TTS_GAN, late=True),
    Repo("facebookresearch/metaseq", "f7ffa5fd61cf90f498a36d365c13dd7f1a912ff7", K.LLM, late=True),
    Repo("microsoft/DeBERTa", "4d7fe0bd4fb3c7d4f4005a7cafabde9800372098", K.LLM, late=True),
    Repo("pytorch/benchmark", "0e83c440a51cd63464fee34724d01b7c814ce39b", K.FRAMEWORK, late=True),
    Repo("facebookresearch/dlrm", "090956ee2319ddd349a42232958aefccfe3f7b0a", K.RESEARCH, late=True),
    Repo("lm-sys/FastChat", "0e6d3e4beaab66f4d3f93db72541a4abab8af28d", K.LLM, late=True),
    Repo("tloen/alpaca-lora", "8bb8579e403dc78e37fe81ffbb253c413007323f", K.LLM, late=True),
    Repo("XPixelGroup/HAT", "1638a9a822581657811867bf670717f8371fc3e5", K.VISION, late=True),
    Repo("guochengqian/PointNeXt", "02341db1a21f144d1f66c61333c90dd20a09e183", K.NERF_3D, late=True),
    Repo("clovaai/deep-text-recognition-benchmark", "e2117f2fb882b3c6085030500a260c113be27a63", K.VISION, late=True),
    Repo("huggingface/diffusers", "58eb52c0803ea9af3abec60841c2a093bdf1f951", K.DIFFUSION, late=True),
    Repo("facebookresearch/d2go", "f4ac15674818ec3c78288eb9f700b0213005cc8b", K.DETECTION, late=True),
    Repo("microsoft/unilm", "768a3c873f598bb9b4d4dfb9267b099e35f8fe56", K.MULTIMODAL, late=True),
    Repo("KellerJordan/modded-nanogpt", "f411b3d346aa52d3504324ca93c230fd84c6c07f", K.LLM, late=True),
    Repo("sthalles/SimCLR", "1848fc934ad844ae630e6c452300433fe99acfd9", K.VISION, late=True),
    Repo("jeonsworld/ViT-pytorch", "460a162767de1722a014ed2261463dbbc01196b6", K.VISION, late=True),
    Repo("CoinCheung/BiSeNet", "6b4b67a8e3eb0cc23b3d7a94843a7c3c11dedca8", K.DETECTION, late=True),
    Repo("facebookresearch/swav", "06b1b7cbaf6ba2a792300d79c7299db98b93b7f9", K.VISION, late=True),
    Repo("OpenGVLab/InternVL", "2410d1dbf208f0e799459aff9376e5747dbf41a2", K.MULTIMODAL, late=True),
    Repo("ShoufaChen/DiffusionDet", "1efb36d4b0b721f2d509bc72656235a94d73ab02", K.DETECTION, late=True),
    Repo("huggingface/peft", "5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40", K.FRAMEWORK, late=True),
    # -- and a second batch of seventeen, linted and mutated with the rules after the first batch's fixes
    Repo("facebookresearch/co-tracker", "82e02e8029753ad4ef13cf06be7f4fc5facdda4d", K.VISION, late=True),
    Repo("open-mmlab/OpenPCDet", "8cacccec11db6f59bf6934600c9a175dae254806", K.NERF_3D, late=True),
    Repo("apple/ml-4m", "cda590faa3b9f022c28537193d3e1650527646a3", K.MULTIMODAL, late=True),
    Repo("Stability-AI/StableCascade", "7a7d341f729ccaa042920a1fac3e7b9326079aca", K.DIFFUSION, late=True),
    Repo("atong01/conditional-flow-matching", "cacd4dc8a5b6f50de63780e8f73754c9371f15db", K.DIFFUSION, late=True),
    Repo("BlinkDL/RWKV-LM", "524481d5099b38d9bc8ef1e89209161b86c8011b", K.LLM, late=True),
    Repo("Dao-AILab/flash-attention", "0251105a2fb19d2957484b7f023cd8c115286ced", K.FRAMEWORK, late=True),
    Repo("xinntao/Real-ESRGAN", "a4abfb2979a7bbff3f69f58f58ae324608821e27", K.VISION, late=True),
    Repo("sczhou/CodeFormer", "b33cc7d639d6545bfcccc7e0bc6ae51f24e79c2b", K.VISION, late=True),
    Repo("THUDM/CogVideo", "e519eced782c08db81f45e5eb40baa45958087ae", K.DIFFUSION, late=True),
    Repo("nerfstudio-project/gsplat", "90d7b4b349e379ccf9ee6a8cef76aa40f48bb32e", K.NERF_3D, late=True),
    Repo("microsoft/FocalNet", "e8514bdcfe1eb6e7e110403e9f2972c67dfed1c3", K.VISION, late=True),
    Repo("facebookresearch/xformers", "ca6d2aa0d43241fc8a8dcd872debc2406160160d", K.FRAMEWORK, late=True),
    Repo("huggingface/trl", "f2cd57710ae345ea6428ae95363267fcf38a3dc8", K.LLM, late=True),
    Repo("facebookresearch/flow_matching", "11568d37f8d5a080e12aa7b5305d9c35ae07d136", K.DIFFUSION, late=True),
    Repo("OpenBMB/MiniCPM-V", "0dbb566de090067266abb76e702fb289f09934c5", K.MULTIMODAL, late=True),
    Repo("NVlabs/SegFormer", "65fa8cfa9b52b6ee7e8897a98705abf8570f9e32", K.DETECTION, late=True),
    # -- and a third batch of fourteen, linted and mutated with the rules of main d20402e
    Repo("openai/jukebox", "08efbbc1d4ed1a3cef96e08a931944c8b4d63bb3", K.TTS_GAN, late=True),
    Repo("whai362/PVT", "57e2dfaa5a46f9050d76f306a4fcd9a7c061f520", K.VISION, late=True),
    Repo("yitu-opensource/T2T-ViT", "0f63dc9558f4d192de926504dbddfa1b3f5db6ca", K.VISION, late=True),
    Repo("facebookresearch/LeViT", "3772b8e7517b900330ee1f46e11b0ae917dae323", K.VISION, late=True),
    Repo("facebookresearch/xcit", "82f5291f412604970c39a912586e008ec009cdca", K.VISION, late=True),
    Repo("microsoft/CvT", "f851e681966390779b71380d2600b52360ff4fe1", K.VISION, late=True),
    Repo("SHI-Labs/Neighborhood-Attention-Transformer", "d334f5bb0bd73cad05e5aeaf7c14cce3876a9650", K.VISION, late=True),
    Repo("facebookresearch/omnivore", "1d55abdc8dfc7bd5cbf69316841ab804d0acf1ca", K.VISION, late=True),
    Repo("yl4579/StarGANv2-VC", "985df557acad47131587955bfe13ea9b99168f71", K.TTS_GAN, late=True),
    Repo("NVIDIA/waveglow", "8afb643df59265016af6bd255c7516309d675168", K.TTS_GAN, late=True),
    Repo("THUDM/GLM", "4f61ed7237a3b0187f4d62062429348276a78c84", K.LLM, late=True),
    Repo("ChenRocks/UNITER", "1dbfa62bb8ddb1f2b11d20775ce324c5e45a3ab4", K.MULTIMODAL, late=True),
    Repo("facebookresearch/AudioMAE", "bd60e29651285f80d32a6405082835ad26e6f19f", K.SPEECH, late=True),
    Repo("huggingface/parler-tts", "d108732cd57788ec86bc857d99a6cabd66663d68", K.TTS_GAN, late=True),
    # -- and a fourth batch of fifteen (training loops of detection, GAN/TTS, NeRF, diffusion), read with main d20402e
    Repo("NVlabs/FasterViT", "22154cc15ad42fc7d9311e84859b691cdaca1ff5", K.VISION, late=True),
    Repo("IDEA-Research/DAB-DETR", "723ddb80e95dbd3c9a2e4ef68c1e0fa9319167cf", K.DETECTION, late=True),
    Repo("IDEA-Research/DN-DETR", "ff3902a20d521ead052d1243ff249b19bc1ce531", K.DETECTION, late=True),
    Repo("SysCV/sam-hq", "fb181f8eff6d0c01b47921ced472e8cdaa69a71d", K.DETECTION, late=True),
    Repo("WongKinYiu/yolor", "3ca250ae2247ca13911fa498cbe8e2c9b6bab5b0", K.DETECTION, late=True),
    Repo("WongKinYiu/ScaledYOLOv4", "676800364a3446900b9e8407bc880ea2127b3415", K.DETECTION, late=True),
    Repo("Plachtaa/VALL-E-X", "3faaf8ccadb154d63b38070caf518ce9309ea0f4", K.TTS_GAN, late=True),
    Repo("autonomousvision/sdfstudio", "370902a10dbef08cb3fe4391bd3ed1e227b5c165", K.NERF_3D, late=True),
    Repo("jaywalnut310/glow-tts", "13e997689d643410f5d9f1f9a73877ae85e19bc2", K.TTS_GAN, late=True),
    Repo("sail-sg/metaformer", "64c534ab8f65105fd21713b38e3393a449ca742d", K.VISION, late=True),
    Repo("LTH14/mage", "1becb14475354fc40df35ba7c7c7bf418a137cd3", K.DIFFUSION, late=True),
    Repo("Alpha-VLLM/Lumina-T2X", "1c606962f95899da711633ee3a333d21c753e2d9", K.DIFFUSION, late=True),
    Repo("NVlabs/GCVit", "8e1941f2099eeb99ee9e8472a5ddbd6b94a8958f", K.VISION, late=True),
    Repo("Atten4Vis/ConditionalDETR", "8ea7c3f3fff49cd287855d4f13cc12a6066bc8e9", K.DETECTION, late=True),
    Repo("PeizeSun/SparseR-CNN", "0e5028da8edd4d0ab2a31b85e511a7af196529d2", K.DETECTION, late=True),
    # -- stop 27: thirty more (3D, BEV detection, diffusion, TTS, video, frameworks), read with main 51f7b55
    Repo("naver/dust3r", "4c24a6ebf04809f2cfe59915e51779c8984aaa40", K.NERF_3D, late=True),
    Repo("fundamentalvision/BEVFormer", "66b65f3a1f58caf0507cb2a971b9c0e7f842376c", K.DETECTION, late=True),
    Repo("mit-han-lab/bevfusion", "326653dc06e0938edf1aae7d01efcd158ba83de5", K.DETECTION, late=True),
    Repo("sihyun-yu/REPA", "67f714503e3892f993844aab088ffc5791c92613", K.DIFFUSION, late=True),
    Repo("PixArt-alpha/PixArt-alpha", "cac2fd3b4544cf7620d8fbbf8b19d97ffcb85892", K.DIFFUSION, late=True),
    Repo("baofff/U-ViT", "ce551708dc9cde9818d2af7d84dfadfeb7bd9034", K.DIFFUSION, late=True),
    Repo("kuleshov-group/mdlm", "c112c526d193436838c98d81455ee51f90309470", K.LLM, late=True),
    Repo("apple/ml-fastvit", "8af5928238cab99c45f64fc3e4e7b1516b8224ba", K.VISION, late=True),
    Repo("snap-research/EfficientFormer", "d01da426243a38303d0a35d01fc928b0e37d38d3", K.VISION, late=True),
    Repo("DingXiaoH/RepLKNet-pytorch", "b76808ac2c763eaed6af9d286c6163c9345b4d5f", K.VISION, late=True),
    Repo("yoxu515/aot-benchmark", "601c138435a1764eb01404f3495b914e6e2e8eca", K.DETECTION, late=True),
    Repo("HazyResearch/hyena-dna", "d553021b483b82980aa4b868b37ec2d4332e198a", K.LLM, late=True),
    Repo("lucidrains/audiolm-pytorch", "d65fd151075d304bc7b28dfcb736e179b6020fca", K.TTS_GAN, late=True),
    Repo("open-mmlab/mmpretrain", "ee7f2e88501f61aa95c742dd5f429f039935ee90", K.FRAMEWORK, late=True),
    Repo("huggingface/nanoVLM", "4e0c0961846135c2217f95e54cb4c2d66eb55e42", K.MULTIMODAL, late=True),
    Repo("NATSpeech/NATSpeech", "2e7084e4c76ee165de8d6ff7dacf6011514fbe7c", K.TTS_GAN, late=True),
    Repo("hao-ai-lab/FastVideo", "2f3d4074064e4d86f99dc784ebbaa296e6f5925f", K.DIFFUSION, late=True),
    Repo("NVIDIA/flowtron", "d149bc466b8325026aeb68aa2fef24337e7463b2", K.TTS_GAN, late=True),
    Repo("NVIDIA/radtts", "07759cd474458f46db45cab975a85ba21b7fee0a", K.TTS_GAN, late=True),
    Repo("sh-lee-prml/HierSpeechpp", "318c633cdc24cf3239d62c95ea8afae200ed2d13", K.TTS_GAN, late=True),
    Repo("yangdongchao/UniAudio", "c1146a8cecf84f1c2e877170d84998393b7e1e78", K.TTS_GAN, late=True),
    Repo("zsyOAOA/ResShift", "3ce1d81e8402fd50083809ae288a3977f6921bdd", K.DIFFUSION, late=True),
    Repo("XPixelGroup/DiffBIR", "3f8b5304245ba0ffd6f1995e51c27c3c72d7618f", K.DIFFUSION, late=True),
    Repo("raoyongming/HorNet", "ac9e21058935f1cf8e27fcca72bbf598fa691d69", K.VISION, late=True),
    Repo("mmaaz60/EdgeNeXt", "388450404fdd6d6e097f1cf94f5afcbbdc352f08", K.VISION, late=True),
    Repo("IDEA-Research/MaskDINO", "3831d8514a3728535ace8d4ecc7d28044c42dd14", K.DETECTION, late=True),
    Repo("OpenGVLab/UniFormerV2", "722a43440fc5b9662cc2a8f23b86caa205e45ebc", K.VISION, late=True),
    Repo("facebookresearch/vjepa2", "c2963a47433ecca0ad4f06ec28bcfa8cb5b5cefb", K.VISION, late=True),
    Repo("microsoft/torchscale", "4d1e0e82e5adf86dd424f1463192635b73fc8efc", K.FRAMEWORK, late=True),
    Repo("Stability-AI/stable-audio-tools", "50049e379e2fe8e35bffc99e57f23ade1c3471b7", K.TTS_GAN, late=True),
    # -- and a second batch of eleven (speech LLM, codecs, video-language, diffusion, restoration), read with main 736f5fb
    Repo("X-LANCE/SLAM-LLM", "a68e78f93a12a678438c8b43974fd987abb66927", K.SPEECH, late=True),
    Repo("alibaba-damo-academy/FunCodec", "3435d870126a48fe61a87fac1af3b6530be388ea", K.SPEECH, late=True),
    Repo("facebookresearch/LaViLa", "8002b5ab0db31789b9897a0a9c36729099e21ad4", K.MULTIMODAL, late=True),
    Repo("guoyww/AnimateDiff", "e92bd5671ba62c0d774a32951453e328018b7c5b", K.DIFFUSION, late=True),
    Repo("microsoft/CSWin-Transformer", "f111ae2f771df32006e7afd7916835dd67d4cb9d", K.VISION, late=True),
    Repo("microsoft/esvit", "2d6becd92be61860697faabf35f88e0698e24379", K.VISION, late=True),
    Repo("microsoft/X-Decoder", "165f8a6314ac84f5c36aaab7216f90dd97e38a43", K.DETECTION, late=True),
    Repo("facebookresearch/multimodal", "3c2a85a39aafaec6b5b15df9cb05ffe1cbd026aa", K.FRAMEWORK, late=True),
    Repo("ZhendongWang6/Uformer", "65fc970a8ffc09605faca74ed016ee93c9ad8a36", K.VISION, late=True),
    Repo("baaivision/Painter", "cfec84587da2a2cc4e0b9acebe6fba1666e66477", K.VISION, late=True),
    Repo("Vchitect/Latte", "b27c24a17487e3c33ae4e92364521303d0f14845", K.DIFFUSION, late=True),
    # -- and a third batch of nine (stereo, depth, matching, NeRF, detection, LLM, TTS), read with main dfca6d4
    Repo("Peterande/D-FINE", "4a1f73a8bcfac736a88abde9596d87f116d780a7", K.DETECTION, late=True),
    Repo("karpathy/llama2.c", "350e04fe35433e6d2941dce5a1f53308f87058eb", K.LLM, late=True),
    Repo("gangweiX/IGEV", "e61a6756984844beb035ec9666ea70e05dcc6b93", K.NERF_3D, late=True),
    Repo("naver/croco", "d7de0705845239092414480bd829228723bf20de", K.VISION, late=True),
    Repo("isl-org/ZoeDepth", "d87f17b2f5fdcb174cf4fb115491f4a6c60de152", K.VISION, late=True),
    Repo("KAIR-BAIR/nerfacc", "fb876fd43eaa7fd1724d002dd5c9bd30255470bf", K.NERF_3D, late=True),
    Repo("NVlabs/neuralangelo", "94390b64683c067c620d9e075224ccfe582647d0", K.NERF_3D, late=True),
    Repo("cvg/glue-factory", "2d17e3b3bd7d30f0c828d4c4d3eac4ecefbf283d", K.VISION, late=True),
    Repo("keonlee9420/Comprehensive-Transformer-TTS", "dca252cae50a18464ce2410aa85a21c557c72d7a", K.TTS_GAN, late=True),
    # -- and a fourth batch of eight (GAN library, depth, diffusion, time series, text-to-3D, human-centric vision), read with main 60b7237
    Repo("NVlabs/imaginaire", "c6f74845c699c58975fd12b778c375b72eb00e8d", K.TTS_GAN, late=True),
    Repo("apple/ml-aim", "bd9e06893f3ad68bda56b34ac2158fda2680b7fc", K.VISION, late=True),
    Repo("LiheYoung/Depth-Anything", "1d03336771fe09c5398ffdd211441e33941a97dc", K.VISION, late=True),
    Repo("crowsonkb/k-diffusion", "4601bf085320592473f681a62808ed873d17fad5", K.DIFFUSION, late=True),
    Repo("thuml/iTransformer", "c2426e68ca13f74aaec08045c5c724d8ad328124", K.RESEARCH, late=True),
    Repo("cure-lab/LTSF-Linear", "0c113668a3b88c4c4ee586b8c5ec3e539c4de5a6", K.RESEARCH, late=True),
    Repo("thu-ml/prolificdreamer", "5a3030471f3a5c7caf88335c3fdaf4fadfdd1231", K.NERF_3D, late=True),
    Repo("facebookresearch/sapiens", "3e829ac27476e4a70b6a01f85e487492afe02df1", K.FRAMEWORK, late=True),
    # -- and a fifth batch of three (real-time DETRs, an optimizer's training scripts), read at the end with main fe77e58
    Repo("roboflow/rf-detr", "35ac6ab64634e188bbb0fa3fc5135132f0df45fc", K.DETECTION, late=True),
    Repo("ShihuaHuang95/DEIM", "a9aa4adce6b5e97b2a6ca9452bf01b7c35440913", K.DETECTION, late=True),
    Repo("sail-sg/Adan", "2c65beaf400775753b155da4082c3819fea689b9", K.RESEARCH, late=True),
    # stop 28, a sixth batch read first with the rules of bfc5f66: GAN library, stereo and flow,
    # audio classification, speech SSL toolkit, medical SAM, video diffusion, re-id framework,
    # contrastive NLP, RL (MuZero), LLM optimizer research, world model, TTS, dialogue framework
    Repo("POSTECH-CVLab/PyTorch-StudioGAN", "947b35e9835b67860fdce44d337f6d7fee7c8db3", K.TTS_GAN, late=True),
    Repo("princeton-vl/RAFT-Stereo", "6068c1a26f84f8132de10f60b2bc0ce61568e085", K.NERF_3D, late=True),
    Repo("YuanGongND/ast", "31088be8a3f6ef96416145c4b8d43c81f99eba7a", K.SPEECH, late=True),
    Repo("s3prl/s3prl", "ec8064b5889f81ca460fbe2c094ce576a6f120b7", K.SPEECH, late=True),
    Repo("bowang-lab/MedSAM", "d71e8a1a99ad751840a22a7fa3ecfb4166fb1488", K.DETECTION, late=True),
    Repo("uni-medical/SAM-Med3D", "f3de1fa10da98e46f49f176773d2b1e306ba131f", K.DETECTION, late=True),
    Repo("ali-vilab/VGen", "4014d1fae4ac4a35e8e8442123611e913001399e", K.DIFFUSION, late=True),
    Repo("JDAI-CV/fast-reid", "c9bc3ceb2f7a6438b62fb515ea3df6d1e999e95d", K.FRAMEWORK, late=True),
    Repo("drinkingcoder/FlowFormer-Official", "6ba7ea82b45394d3a7a25808399695427c9febd8", K.NERF_3D, late=True),
    Repo("lucidrains/video-diffusion-pytorch", "2b0b75ff2acc6e275fdf778be5804c5f8adfe1ef", K.DIFFUSION, late=True),
    Repo("princeton-nlp/SimCSE", "49fa580a853752ede55b8c76d9debf748e214d3f", K.MULTIMODAL, late=True),
    Repo("opendilab/LightZero", "9f717c80c86d5c69b39a56d8ade18e684ce6311a", K.RL, late=True),
    Repo("jiaweizzhao/GaLore", "2cc66f88cce189e505affbb91042a8e77f5bf4e9", K.LLM, late=True),
    Repo("eloialonso/diamond", "5bcd1599755b4f2fae8e5e079e02f0728e174965", K.RL, late=True),
    Repo("SWivid/F5-TTS", "2ae2c9bd9b64dab2cb069c4b97e5e7673c521e01", K.TTS_GAN, late=True),
    Repo("facebookresearch/ParlAI", "a29567f7ce76992fd1f03c51ba9e3b155a37ea51", K.FRAMEWORK, late=True),
    # stop 28, a seventh batch read first with the rules of 2accded: GAN, singing voice, tabular,
    # atomistic ML (two OCP trainers), weather, distillation, frameworks with their own scaler
    # wrappers (thinc, catalyst, determined), LLM p-tuning, grounding, NLP, protein models
    Repo("lucidrains/stylegan2-pytorch", "ce7f830bc10d037cddc75d6166904baf07945cf6", K.TTS_GAN, late=True),
    Repo("MoonInTheRiver/DiffSinger", "ce7789f1427ddcdec647b3ab2bf2d1b12134e51e", K.TTS_GAN, late=True),
    Repo("automl/TabPFN", "ddf5e852c05e42d7032604638ede86c81f9a95ea", K.RESEARCH, late=True),
    Repo("FAIR-Chem/fairchem", "31c096399b82ff37cb4a36287efdfe1c9d84513c", K.FRAMEWORK, late=True),
    Repo("NVlabs/FourCastNet", "93360c1720a9f97aabf970689f21c9fad8737788", K.RESEARCH, late=True),
    Repo("yoshitomo-matsubara/torchdistill", "3e4373c45214c5c56eebac481d5bfe8b8735aa05", K.FRAMEWORK, late=True),
    Repo("explosion/thinc", "20eec35566997d5272d083be1f1a0ec9006934ff", K.FRAMEWORK, late=True),
    Repo("catalyst-team/catalyst", "e99f90655d0efcf22559a46e928f0f98c9807ebf", K.FRAMEWORK, late=True),
    Repo("determined-ai/determined", "c1e9c6d7b821ef246d612bb9922f7fb1b58dcf2e", K.FRAMEWORK, late=True),
    Repo("atomicarchitects/equiformer", "64cb7866f48b9aa156e74a9d6a2ef2663b367437", K.RESEARCH, late=True),
    Repo("THUDM/ChatGLM-6B", "401bf3a8a7dd8a26fba189551dccfc61a7079b4e", K.LLM, late=True),
    Repo("longzw1997/Open-GroundingDino", "d248268ac9cab808d4aa2691f4a76972ec5d9ab4", K.DETECTION, late=True),
    Repo("flairNLP/flair", "d4ea3777998ba67bfbe6b6b8359e024dcf673c3e", K.MULTIMODAL, late=True),
    Repo("songlab-cal/tape", "6d345c2b2bbf52cd32cf179325c222afd92aec7e", K.RESEARCH, late=True),
    # stop 28, an eighth batch read first with the rules of 373cf2d: fp8 training (MS-AMP,
    # torchao), a framework with its own loss scaler (BMTrain), fairseq2, neural operators,
    # music source separation, video restoration, graph benchmarks, emergent communication,
    # a compiler's tests (lightning-thunder), CLIP data filtering
    Repo("Azure/MS-AMP", "9746ea85289f8e6233646e73ace35f730d1245d5", K.FRAMEWORK, late=True),
    Repo("OpenBMB/BMTrain", "30e6469744d070bd2ea487f3e7b8401168002081", K.FRAMEWORK, late=True),
    Repo("neuraloperator/neuraloperator", "93d3f0633e048c915004cd782cb339acf06e1157", K.RESEARCH, late=True),
    Repo("ZFTurbo/Music-Source-Separation-Training", "ccc011abf7f89dd7922bb2888d48493b575c0289", K.SPEECH, late=True),
    Repo("facebookresearch/fairseq2", "027bdebca4b9177f1ac1df1cc981b9288465d68e", K.FRAMEWORK, late=True),
    Repo("pytorch/ao", "36027d82d1ad9949597ea16002ff4940374b1b94", K.FRAMEWORK, late=True),
    Repo("tsurumeso/vocal-remover", "99f92fe4b6bfe37bf4ff5bf4110ce224007312e5", K.SPEECH, late=True),
    Repo("JingyunLiang/VRT", "94a5f504eb84aedf1314de5389f45f4ba1c2d022", K.VISION, late=True),
    Repo("snap-stanford/ogb", "61e9784ca76edeaa6e259ba0f836099608ff0586", K.RESEARCH, late=True),
    Repo("facebookresearch/EGG", "54eb11c6b4ba3d3171811378f7ad7a117fa93a97", K.RESEARCH, late=True),
    Repo("Lightning-AI/lightning-thunder", "1e22aacb1aef6e79718a5ca2f49ab91b993cb4ef", K.FRAMEWORK, late=True),
    Repo("mlfoundations/datacomp", "4a8df1992566ef8334773f7152e1855b1f716162", K.MULTIMODAL, late=True),
    # stop 28, a ninth batch read first with the rules of d564bd7: kernel libraries of autograd
    # Functions (unsloth, flash-linear-attention, Liger), semi-supervised learning, speaker
    # recognition, speed-run CIFAR scripts, an LLM fine-tuning framework, physics ML with CUDA
    # graphs, a weather foundation model, talking-head video, HD-map detection
    Repo("unslothai/unsloth", "015bdef0d94a241bcd94eec7a405b1700632180d", K.LLM, late=True),
    Repo("fla-org/flash-linear-attention", "bc3b101dcb713ddc5bd8924b66754eb68b5ccf89", K.LLM, late=True),
    Repo("linkedin/Liger-Kernel", "ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c", K.LLM, late=True),
    Repo("microsoft/Semi-supervised-learning", "1ef4cbebcc0b368158315aeb425053858cf6c845", K.VISION, late=True),
    Repo("modelscope/3D-Speaker", "09e7806729ed412d3f216316a552a30c8e9e37fa", K.SPEECH, late=True),
    Repo("KellerJordan/cifar10-airbench", "f1c599c4af24aca803e3e65a6a7e52a502e09d0e", K.RESEARCH, late=True),
    Repo("tysam-code/hlb-CIFAR10", "993965202fc4dc05b699a39db33c00f1c7f647fd", K.RESEARCH, late=True),
    Repo("hiyouga/LLaMA-Factory", "ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30", K.LLM, late=True),
    Repo("NVIDIA/physicsnemo", "94b355108cfd10e253d3d41cacdc0c0112b078e4", K.FRAMEWORK, late=True),
    Repo("microsoft/aurora", "7fa85ffd97eb5bef15136711a796de4e8b919794", K.RESEARCH, late=True),
    Repo("TMElyralab/MuseTalk", "0a89dec45a0192b824e3cf4daf96c239440c5ed8", K.DIFFUSION, late=True),
    Repo("hustvl/MapTR", "a6872d8d9670bde17b4b01560f1221f88b443d55", K.DETECTION, late=True),
    # stop 28, a tenth batch read first with the rules of cca7c03: RL libraries with mixed
    # precision (rl_games, skrl), diffusion fine-tuning tools (OneTrainer, ai-toolkit), a
    # scikit-learn wrapper (skorch), backbones (GFNet, RepVGG), retrieval (contriever), a
    # vocoder toolkit, graph learning (dgl), human animation, reward models (PickScore)
    Repo("Denys88/rl_games", "262cf20258360ce50c4b73694210bbdc8b0d58ad", K.RL, late=True),
    Repo("Toni-SM/skrl", "c29ced630e83ab32304dc8a3de241a70d3bc5746", K.RL, late=True),
    Repo("Nerogar/OneTrainer", "23df3832e8f213d64c337e39f9365ba46e99fed0", K.DIFFUSION, late=True),
    Repo("ostris/ai-toolkit", "27a03a91f23eb1b757d5ec2e80ee3e129cfcc350", K.DIFFUSION, late=True),
    Repo("skorch-dev/skorch", "5db0ddc962117a2c3a646910ecd2e70253ff8e87", K.FRAMEWORK, late=True),
    Repo("raoyongming/GFNet", "2de48b626ea805de82a7f389fed930af1ae0340d", K.VISION, late=True),
    Repo("DingXiaoH/RepVGG", "eae7c5204001eaf195bbe2ee72fb6a37855cce33", K.VISION, late=True),
    Repo("facebookresearch/contriever", "39fb2201450cdba1648183737ed56d6b1bc33778", K.MULTIMODAL, late=True),
    Repo("kan-bayashi/ParallelWaveGAN", "86740373ec609cb9fb192d472d2aea125041491a", K.TTS_GAN, late=True),
    Repo("dmlc/dgl", "3d16000b4170fa741ed9e9667f22ba84d3493026", K.RESEARCH, late=True),
    Repo("yuvalkirstain/PickScore", "f79607ff68609c1e6dfa78cba38afeea4c248df1", K.MULTIMODAL, late=True),
    # stop 28, an eleventh batch read first with the rules of cca7c03: an educational repository
    # of many training scripts, template detection/segmentation repositories, an SR GAN,
    # medical segmentation (MONAI research, MedNeXt, CLIP-driven), generative recommenders,
    # image quality, diffusion depth, RLHF, federated learning
    Repo("WZMIAOMIAO/deep-learning-for-image-processing", "2ecf2eea2b97777bb18fe9ff458292fde5a92b7e", K.RESEARCH, late=True),
    Repo("bubbliiiing/yolov8-pytorch", "c245eb0160316f101fc49d005068db495365ae5c", K.DETECTION, late=True),
    Repo("bubbliiiing/deeplabv3-plus-pytorch", "90dee2706938fa3a76e9bb8f5fcfbaf90517e08a", K.DETECTION, late=True),
    Repo("Lornatang/SRGAN-PyTorch", "8842030eb433f8578a77328060121fa5a9a3cb43", K.TTS_GAN, late=True),
    Repo("Project-MONAI/research-contributions", "21ed8e57c7256834d4fbaf19579ca25ad3d135ee", K.DETECTION, late=True),
    Repo("MIC-DKFZ/MedNeXt", "0b78ed869fbd1cc2fd38754d2f8519f1b72d43ba", K.DETECTION, late=True),
    Repo("facebookresearch/generative-recommenders", "2e81fab69a497fb5e24cd23569adf1e78070e4ec", K.RESEARCH, late=True),
    Repo("chaofengc/IQA-PyTorch", "01ae427f9afd66842031d3a7cb694dcad5b5cbb8", K.VISION, late=True),
    Repo("ljwztc/CLIP-Driven-Universal-Model", "43c12399cc98a40f447342a8dc2cecae5edae84c", K.DETECTION, late=True),
    Repo("prs-eth/Marigold", "b1dffaaa3f7a2fe406b3bb9dd3c358b30da66060", K.DIFFUSION, late=True),
    Repo("OpenRLHF/OpenRLHF", "3c3be6234e0cb353e76bb8019947db9dfe99fca7", K.LLM, late=True),
    Repo("adap/flower", "fdef7afb1dca3030553be302366cfd285ed6632c", K.FRAMEWORK, late=True),
    # stop 29, a twelfth batch read first with the rules of 54147ed: time-series forecasting,
    # recommender and AutoML frameworks, protein and single-cell biology, NLP fine-tuning
    # libraries, dense retrieval, semi-supervised and continual learning, video tracking and
    # video-language, point clouds, molecules, music, medical 3D segmentation, document layout,
    # tabular deep learning, speech units, a graph learning library
    Repo("MAZiqing/FEDformer", "c0f6b972def125691434d62be1ecadf710ae921a", K.RESEARCH, late=True),
    Repo("kwuking/TimeMixer", "8d230b7d785d73104522d4cb954e2d4fba1412a4", K.RESEARCH, late=True),
    Repo("RUCAIBox/RecBole", "7b02be5ec80a88310f2d04a27a82adfcbb5dc211", K.FRAMEWORK, late=True),
    Repo("neosr-project/neosr", "31c7022620c682cf0961c8634d60787179145c5b", K.VISION, late=True),
    Repo("dauparas/ProteinMPNN", "8907e6671bfbfc92303b5f79c4b5e6ce47cdef57", K.RESEARCH, late=True),
    Repo("bowang-lab/scGPT", "cebd6fae655b9c585a4807daa3ac31bb764f06b4", K.RESEARCH, late=True),
    Repo("ludwig-ai/ludwig", "5d19f3e632124e2f92266faca773047aeeeb0da4", K.FRAMEWORK, late=True),
    Repo("ThilinaRajapakse/simpletransformers", "03a3789f2c65119949f7cd98b524e78c6cc87d27", K.LLM, late=True),
    Repo("luyug/GradCache", "906f03835fbc183132a9db32612a9e8f180ca3b4", K.LLM, late=True),
    Repo("naver/splade", "8dcd33a054d790e74aceda25b128c1b188c5d9c1", K.LLM, late=True),
    Repo("TorchSSL/TorchSSL", "f26e1d42967cec7f7c8a00c2e7ff9219d8ab7c92", K.RESEARCH, late=True),
    Repo("botaoye/OSTrack", "33b5e12586216b7fd0e95d255bd01ba44cbec759", K.VISION, late=True),
    Repo("OpenGVLab/VideoMamba", "f3427e42cb8453a523aec3a6f86d57b5bc1de5c3", K.VISION, late=True),
    Repo("klauscc/VindLU", "30465487e8314fa1df45b1457b0313f25649e054", K.MULTIMODAL, late=True),
    Repo("arthurdouillard/dytox", "4da25c13ef34e827e5361f78dcda08811a413c74", K.RESEARCH, late=True),
    Repo("dvlab-research/Stratified-Transformer", "140783d3d8e93a27a8724c69fd952fac0645be4d", K.NERF_3D, late=True),
    Repo("atomicarchitects/equiformer_v2", "cf45ee209abdceaa606c9a8dce50c9c753d470b2", K.RESEARCH, late=True),
    Repo("chavinlo/musicgen_trainer", "a29a989a67184b1c78cf60a4ffda060831955a17", K.SPEECH, late=True),
    Repo("Gofinge/PointTransformerV2", "f926006d8d06c1d67ff75310ecc19e8c470ef0ea", K.NERF_3D, late=True),
    Repo("Amshaker/unetr_plus_plus", "dcba1c6e8179b77e2ec72b5f4daced8926259f01", K.VISION, late=True),
    Repo("opendatalab/DocLayout-YOLO", "7c4be36bc61f11b67cf4a44ee47f3c41e9800a91", K.DETECTION, late=True),
    Repo("yandex-research/tabm", "28e47ae301c92ec37787dde1ce923a0793f405b4", K.RESEARCH, late=True),
    Repo("OpenGVLab/unmasked_teacher", "4fb4049f5a87919882e68ccc427615ae7dab1c33", K.MULTIMODAL, late=True),
    Repo("bshall/hubert", "c01819f21aa07393b213189094e85adbf5fbb8d7", K.SPEECH, late=True),
    Repo("THUDM/CogDL", "281f47424d58844b167ccbe41d9829c1f77689f8", K.FRAMEWORK, late=True),
    # stop 29, a thirteenth batch read first with the rules of aa43150: optical flow, speech
    # enhancement, voice conversion, a small LLM's trainers, 3D shape generation, CLIP re-id,
    # LLM quantization, self-supervised learning, face recognition, metric depth, weather
    # (makani), physics-informed nets (modulus-sym), inpainting
    Repo("zacjiang/GMA", "2f1fd29468a86a354d44dd25d107930b3f175043", K.VISION, late=True),
    Repo("haoxiangsnr/FullSubNet", "5e223b023f91085bc784121453de22ea722fa01f", K.SPEECH, late=True),
    Repo("OlaWod/FreeVC", "60032a7b1b030831ae17a4b6959656d88df6cc9c", K.TTS_GAN, late=True),
    Repo("jingyaogong/minimind", "d65ef2c00ebc6082f9df11541e1b191655eddb00", K.LLM, late=True),
    Repo("1zb/3DShape2VecSet", "8df9b7a55c42d4dcad152294755250a2ab1e34e5", K.NERF_3D, late=True),
    Repo("Syliz517/CLIP-ReID", "eb1898b72c882875f478bebfc6d41644eece0a5d", K.VISION, late=True),
    Repo("OpenGVLab/OmniQuant", "95fae1bd00eaa60d03a20eb39c76c4cb173f51f7", K.RESEARCH, late=True),
    Repo("facebookresearch/VICRegL", "803ae4c8cd1649a820f03afb4793763e95317620", K.VISION, late=True),
    Repo("Tencent/TFace", "171ec1434aca0972e111663ac646c9c1e3e44b5b", K.VISION, late=True),
    Repo("lpiccinelli-eth/UniDepth", "8d8cfe4c7ee15297099983607febf0d4f32eb3d6", K.VISION, late=True),
    Repo("NVIDIA/makani", "2dfc4c893343dce717d611099f0df8cf0d243311", K.RESEARCH, late=True),
    Repo("NVIDIA/modulus-sym", "24813033e0bb3e68604e5e995bb364c62573ad3a", K.FRAMEWORK, late=True),
    Repo("DQiaole/ZITS_inpainting", "6f4a47bb03bfb82a4860fc55ae0719ab0db8f6eb", K.VISION, late=True),
    # stop 29, a fourteenth batch read first with the rules of f14cf20: pose estimation, robot
    # imitation, lip reading, radiology reports, audio-visual MAE, remote sensing, captioning/VQA,
    # graph transformers, recommendation, few-shot learning, a Kaggle solution, spiking nets
    Repo("IDEA-Research/ED-Pose", "4afc5beb94196444554e084df8457199a9ce5a91", K.DETECTION, late=True),
    Repo("pairlab/QueST", "cc25a835a00cf2d91df69704bdd757904d13c061", K.RL, late=True),
    Repo("Fengdalu/learn-an-effective-lip-reading-model-without-pains", "bef9eb1eb88cd186ac8243d233fec93fec1e1745", K.VISION, late=True),
    Repo("ttanida/rgrg", "9520b6d7f555d458898c6795e57cc00f7f90182b", K.MULTIMODAL, late=True),
    Repo("YuanGongND/cav-mae", "68fe8c2a3917dc2926e41f796bfdcb331a64b42c", K.MULTIMODAL, late=True),
    Repo("sustainlab-group/SatMAE", "e31c11fa1bef6f9a9aa3eb49e8637c8b8952ba5e", K.VISION, late=True),
    Repo("j-min/VL-T5", "a07d779aac8134a587a9e369b6e90f31ef1e6865", K.MULTIMODAL, late=True),
    Repo("yandex-research/heterophilous-graphs", "a431395582e929d88271309716bea4fe24ce6318", K.RESEARCH, late=True),
    Repo("westlake-repl/IDvs.MoRec", "ce372cfc523c52458fa0267c9834d1be488e026a", K.RESEARCH, late=True),
    Repo("mrkshllr/FewTURE", "c67d4c1fe01d683abcc46eb409ce8eed6fcf1b76", K.RESEARCH, late=True),
    Repo("bilzard/kaggle-hms-public", "7d737b0904613ae9574215e40b2be65c42a829e8", K.RESEARCH, late=True),
    Repo("fangwei123456/spikingjelly", "afb132264a8cbe38d0f221dcef04053e6ba134d3", K.FRAMEWORK, late=True),
    # stop 29, a fifteenth batch read first with the rules of f4a2da1: video object segmentation, a
    # segmentation toolkit, molecule generation, text-to-image and video diffusion, CTC/transducer
    # ASR, speaker verification, an SR GAN, time series, face restoration, protein diffusion, Dreamer RL
    Repo("hkchengrex/STCN", "eb83102e1957d9f21fb268ab202dad72ef06a1b0", K.VISION, late=True),
    Repo("sithu31296/semantic-segmentation", "c2843c9cf42a66a96a4173a0ef0059975a6e387c", K.VISION, late=True),
    Repo("devalab/molgpt", "72ff33ae747c0a4908b822732019a66e965a595a", K.RESEARCH, late=True),
    Repo("victorchall/EveryDream2trainer", "5098db8325c2b5951b342156556b938b642a0338", K.DIFFUSION, late=True),
    Repo("sihyun-yu/PVDM", "793172f7acbe51036a9f2c62a6d2bd1b0a0c6d90", K.DIFFUSION, late=True),
    Repo("burchim/EfficientConformer", "612ef0b39c5df842b0bbbfe16943f271f1369e0a", K.SPEECH, late=True),
    Repo("clovaai/voxceleb_trainer", "f51bab870672a9b0b50fa158b4e30f329e7866d7", K.SPEECH, late=True),
    Repo("Lornatang/ESRGAN-PyTorch", "6f7cd5f0cf83f743ce55d738a03a0542232282eb", K.TTS_GAN, late=True),
    Repo("thuml/Nonstationary_Transformers", "c4ec40675d11d50b3d9923657f408d0db6f90f56", K.RESEARCH, late=True),
    Repo("zsyOAOA/DifFace", "5c9ab801b2872544b221d4bfdeead7d430af4ed2", K.DIFFUSION, late=True),
    Repo("microsoft/evodiff", "33206e99446f799ec11cf6e57d66ffaec837be91", K.RESEARCH, late=True),
    Repo("AITheScienceGuy/DecoderFreeMiniDreamer", "f23fd8d98adc0f70d9548694cd4baac9f6675c31", K.RL, late=True),
    # stop 29, a sixteenth batch read first with the final rules of 0ddcf00: video-language, TTS,
    # medical MAE, adversarial training, driving, source separation, open-vocabulary distillation,
    # a classification/KD framework, a speech toolkit, masked image modelling, music transcription
    Repo("jayleicn/singularity", "10a7f7062ab8af187b3a47803851b4e462191492", K.MULTIMODAL, late=True),
    Repo("heatz123/naturalspeech", "ca2f814d960149a8fdc3f3e4d773abb67e7c18ec", K.TTS_GAN, late=True),
    Repo("lambert-x/medical_mae", "953a460b41534321ff9a8bbee41efe6e21877017", K.VISION, late=True),
    Repo("nmndeep/revisiting-at", "d7166c074223b89e3b7e1ec1489a8d069cc5afb7", K.RESEARCH, late=True),
    Repo("autonomousvision/carla_garage", "1448bed63642bfe7c25e49e79e15713b20d104e6", K.RESEARCH, late=True),
    Repo("kianzohoury/auralflow", "503e249a03969072f08cc1ed3227addc830a0797", K.SPEECH, late=True),
    Repo("wusize/CLIPSelf", "1c7fe9c5c38d800903d4754a89d7a8fcc7977101", K.DETECTION, late=True),
    Repo("hunto/image_classification_sota", "6f7a70a1dd57fd88413d83909d3d53243068f701", K.VISION, late=True),
    Repo("funcwj/aps", "c814dc5a8b0bff5efa7e1ecc23c6180e76b8e26c", K.SPEECH, late=True),
    Repo("implus/UM-MAE", "cb7776b075491824626cd93b64d7de62f0cf28c6", K.VISION, late=True),
    Repo("JavierVillatoro/AMT_Piano", "1ab8badf51766ae616afb788fc8bcec69c9614ae", K.RESEARCH, late=True),
    Repo("PlayVoice/vits_chinese", "c5ab514ede52ea1b8b6f0b32eb6b039c53937a22", K.TTS_GAN, late=True),
    # stop 30, a seventeenth batch read first with the rules of 60274fe: a small LLM, handwriting
    # OCR, time series, super-resolution, LM+knowledge-graph GNN, dehazing, CLIP LoRA, audio
    # classification, weather, face recognition, a Kaggle solution, model-based RL, medical
    # segmentation, music-text, music generation, paper tutorials, recommender NAS, code RL,
    # volumetric video, graph benchmarks
    Repo("DLLXW/baby-llama2-chinese", "98a20dbb35e686a62188f61f479809cb2d4f8d6e", K.LLM, late=True),
    Repo("FactoDeepLearning/DAN", "deab478a3eece2f53cdf83095be0d90cea46d156", K.VISION, late=True),
    Repo("lss-1138/SegRNN", "8e869ecfdf1daab3a0ba14d1d620796c1a5d2c4f", K.RESEARCH, late=True),
    Repo("Lornatang/RCAN-PyTorch", "52557f66fc2cb396211054c6f927d5da45dd6d56", K.VISION, late=True),
    Repo("michiyasunaga/dragon", "b21251e4482128cae9825e4c7b8ba771ab19ad5c", K.RESEARCH, late=True),
    Repo("IDKiro/DehazeFormer", "5af7c34d6f8e0784a88a2132a7add296bf99ca9c", K.VISION, late=True),
    Repo("MaxZanella/CLIP-LoRA", "358f0d7361f59e66c0b2d0b672a3dafb143a759b", K.MULTIMODAL, late=True),
    Repo("yeyupiaoling/AudioClassification-Pytorch", "c63d284a8895b83ae462dc0a8e36c01ebdbf20bb", K.SPEECH, late=True),
    Repo("GISWLH/CanglongPhysics", "c00d55f764cfb6a1eac4f142352a94433e535738", K.RESEARCH, late=True),
    Repo("bubbliiiing/facenet-pytorch", "af7d20caeb7c164129ba8c5edae3c0e9605be169", K.VISION, late=True),
    Repo("ChristofHenkel/kaggle-asl-fingerspelling-1st-place-solution", "82d4b5bbad44738469a1bfc668540675ce3975eb", K.RESEARCH, late=True),
    Repo("Shengjiewang-Jason/EfficientZeroV2", "12b9e775df1f8afb4a1dc854cf722ea84fbfb61d", K.RL, late=True),
    Repo("yhygao/CBIM-Medical-Image-Segmentation", "7c26979a96eb9fe057320e1db38680bae33786b8", K.VISION, late=True),
    Repo("ilaria-manco/muscall", "dfe0782f307df9183180e462b641b728740f08d6", K.MULTIMODAL, late=True),
    Repo("ElectricAlexis/NotaGen", "4553cd743b6b449732baf2a6cc58885fe853b11d", K.RESEARCH, late=True),
    Repo("labmlai/annotated_deep_learning_paper_implementations", "e6b3c8a6a2cdae4071bcde1abeaaf9a2bc37bd53", K.FRAMEWORK, late=True),
    Repo("facebookresearch/NasRec", "79bf6f99cb2ad3b9d06bbf32a9c1ccda7f73585d", K.RESEARCH, late=True),
    Repo("salesforce/CodeRL", "ec3c526a07e44f56f702f354cbad11187bdf25cc", K.LLM, late=True),
    Repo("zju3dv/EasyVolcap", "4cb3c000a31b8764834c79792b355f110d947e75", K.NERF_3D, late=True),
    Repo("yandex-research/graphland", "7246fe3f6b53cffaa76e3dc22726a6db3984bbe3", K.RESEARCH, late=True),
    # stop 30, an eighteenth batch read first with the rules of 9e70312: text-to-image diffusion,
    # LiDAR segmentation, machine translation, NLP and vision training frameworks with hooks and
    # drivers, lip-sync diffusion, video recognition, a model hub's trainers, face recognition,
    # speech translation, a config-driven TTS/GAN framework, bioimage segmentation, surface
    # normals, protein structure, a Keras-style trainer, pose estimation, an audio codec GAN,
    # robot manipulation
    Repo("microsoft/VQ-Diffusion", "d1d39487eaab07375d95b8ed59c6b3becf1329c6", K.DIFFUSION, late=True),
    Repo("valeoai/WaffleIron", "bcd387ce5483c3712f037d3540b545115ec8c1f1", K.NERF_3D, late=True),
    Repo("joeynmt/joeynmt", "cdc4d03d430a1b0f29793a0d95743c5e72ae2f6c", K.LLM, late=True),
    Repo("fastnlp/fastNLP", "e03d2ddb4b5ea3f09a64698dc1f73ab3cdf6a8c6", K.FRAMEWORK, late=True),
    Repo("bytedance/LatentSync", "a229c3948406bc2cf6eaf4873e662e70c6a04746", K.DIFFUSION, late=True),
    Repo("whwu95/Text4Vis", "d61b34d0208a03ce6146edcc51033b2a040cb249", K.MULTIMODAL, late=True),
    Repo("modelscope/modelscope", "2905da12205410de83f2fcdaabb4b505430890d5", K.FRAMEWORK, late=True),
    Repo("deepinsight/insightface", "7fadd420c2351d0ffa8cac403421c1a3ed733365", K.VISION, late=True),
    Repo("alibaba/EasyCV", "901ff18693da724af7f9e71ddde216ff2ddbe29e", K.FRAMEWORK, late=True),
    Repo("facebookresearch/seamless_communication", "90e2b57ac4d82fa2bfaa25caeffe39ceb8b2ebec", K.SPEECH, late=True),
    Repo("neonbjb/DL-Art-School", "f31a333c4ff51eef9d5d4d1091fce7a610159b80", K.TTS_GAN, late=True),
    Repo("constantinpape/torch-em", "6f71247c0bde24cb050bb25501ca61517ce08b7f", K.VISION, late=True),
    Repo("baegwangbin/DSINE", "ef0c2afa32b4dd19cb8ca4567c652802cd92591c", K.VISION, late=True),
    Repo("bytedance/Protenix", "3248f8e7e1c94f0b5835a40ebdc649d74d631a82", K.RESEARCH, late=True),
    Repo("Tongjilibo/torch4keras", "021dc8baf9e6fe82129f3ee3d21b9b162f3ec514", K.FRAMEWORK, late=True),
    Repo("thawro/pytorch-human-pose", "2ae8bf4f63c419401be1a1b007b71659b44bc27c", K.VISION, late=True),
    Repo("SegmentationBLWX/sssegmentation", "eb1878c112402e86a92ee6958778272065bf59b9", K.VISION, late=True),
    Repo("kakaobrain/rq-vae-transformer", "341395e562ac347f5eb62db9f5f08b9f2cc42a60", K.RESEARCH, late=True),
    Repo("aask1357/hilcodec", "616e8c36e5ee99c32d8bbb65b855e87a9a314abd", K.TTS_GAN, late=True),
    Repo("NVlabs/RVT", "367995a1a2169b6352bf4e8b0ed405890462a3a0", K.RL, late=True),
    # stop 30, a nineteenth batch read first with the rules of 1c59fcd: personal TTS and OCR
    # scripts, sign language, a backdoor toolkit, mixed-precision neural ODEs, molecules, a pruning
    # library, RLHF reward models, robot reward learning, CLIP fine-tuning, voice conversion,
    # medical CLIP, a small MoE LLM, audio deepfake detection, Kaggle satellite imagery,
    # generative recommendation, video diffusion, radar emitter classification
    Repo("sfezn1220/pytorchDeepLearning", "f495136524461a46d06dcff12c61d79f0a919d65", K.TTS_GAN, late=True),
    Repo("B1n-isme/Continuous-Sign-Language-Recognition", "f147d0a2bf2a6a20a194802577749a785ec0926f", K.VISION, late=True),
    Repo("ain-soph/trojanzoo", "45d680c4d3bc7810a0a7a5b6fa939f87d5e6c551", K.RESEARCH, late=True),
    Repo("EmoryMLIP/rampde", "baecec70b8f5e46f1d3486580b47edc56fa6e8f7", K.RESEARCH, late=True),
    Repo("jfpuget/NVIDIA-PCQM4Mv2", "82ee505cbaf26bd0830e2f39b6638b9f08a17de8", K.RESEARCH, late=True),
    Repo("VainF/Torch-Pruning", "e80127d7c6935c319a7dd6719b8a72e3c1fcbff9", K.FRAMEWORK, late=True),
    Repo("zjykzj/crnn-ctc", "15fa573c697615e22c6d02358303e477edadaaee", K.VISION, late=True),
    Repo("mdeepak08/crnn-ctc-ocr-pytorch", "69004e546335eed8f445a51246c6a353dd2b3258", K.VISION, late=True),
    Repo("kartikmunjal/rlhf-and-reward-modelling-alt", "587179b629f825d32f0644efa6f932d49685a204", K.LLM, late=True),
    Repo("Caiyishuai/reward-model", "8d3040eb1565641b593f2dd38faa0689b0895c5a", K.RL, late=True),
    Repo("Dickey007s/efficient-clip-finetuning", "5f514ba7b59887c43ad735c4966f3890483f0168", K.MULTIMODAL, late=True),
    Repo("uthree/scyclone-vocos", "62275331efb9210afdf422e10ae507a5f965dcb3", K.TTS_GAN, late=True),
    Repo("DanteMillerDS/MedCLIP-pediatric", "b6912e9efbd3e2380ca5dd0c1bd529fb1199483d", K.MULTIMODAL, late=True),
    Repo("Open-Superintelligence-Lab/blueberry-llm", "f59dd0c1b99e8357cc5d9f8ff2b8b1efe198aef7", K.LLM, late=True),
    Repo("qnish-db/Hindi-Audio-Deepfake-Detection-using-Mixture-of-Experts", "c0dac2f98d04b6cb52afa7a01ad6bbd96e904991", K.SPEECH, late=True),
    Repo("selimsef/kaggle-identify-contrails-4th", "2ceb6ac1cecd7919b1ecfdc41d6ee5c9143293ab", K.VISION, late=True),
    Repo("user00144/SWUniv_fake_voice_detection", "e030485d2231ccca0ab13410d6cd436a3328183f", K.SPEECH, late=True),
    Repo("muellertob/Semantic-ID-Generation", "25dc8911ed3535c224946c2aee284390ba7b5aed", K.RESEARCH, late=True),
    Repo("Vinmwaura/Custom-Simple-Video-Diffusion", "d65db066275dead14c526255f34f0c0dd21cda38", K.DIFFUSION, late=True),
    Repo("airex-lab/Emitter_Classification_Experiments", "2e6be043b2a967ee3defb1c1a37af86f994c755d", K.RESEARCH, late=True),
    # stop 31, a twentieth batch read first with the rules of 3e3f4a9: a Kaggle toolkit and
    # templates, tracking, point clouds, weather, an RL framework, recommendation, EHR BERT, a
    # sparsification library, an LLM platform, matching, detection, sign language, birds, BERT
    # pretraining on a budget, video-text, image restoration, spine MRI, music source separation
    Repo("analokmaus/kuma_utils", "1ea041a5ffc657f589cf18814540a527006890e0", K.FRAMEWORK, late=True),
    Repo("researchmm/Stark", "162e1d37a38f92251cb380e90ccdb59608f2df3c", K.VISION, late=True),
    Repo("dvlab-research/SphereFormer", "0ff1e0ae84a4280fbecc9cfc3ac3aec41d24eeba", K.VISION, late=True),
    Repo("ecmwf/WeatherGenerator", "e3b29bee129f4fc764845b925324aa9eec0e0d1b", K.RESEARCH, late=True),
    Repo("HorizonRobotics/alf", "23aca4924967228ca6e7368517ab11b3612295f0", K.RL, late=True),
    Repo("daikichiba9511/my-kaggle-template", "7dbb05aea04ce430066c4e5472779e640d2ea258", K.RESEARCH, late=True),
    Repo("alibaba/TorchEasyRec", "54cac3165a2adece9a932616463a5b6a2095b0ce", K.FRAMEWORK, late=True),
    Repo("mikkelfo/CORE-BEHRT", "7cf32d8dcec801a5d6bfdad055ae79aa36a401cf", K.RESEARCH, late=True),
    Repo("neuralmagic/sparseml", "1c04a016c830b0ccfbb0402e291405a2252c19a6", K.FRAMEWORK, late=True),
    Repo("oumi-ai/oumi", "d8ed07778d7931565798ad45a859cafb54d4fc58", K.LLM, late=True),
    Repo("Parskatt/RoMa", "a1494f87ab85485ad8a92a981876ca837e2334e4", K.VISION, late=True),
    Repo("sovit-123/fasterrcnn-pytorch-training-pipeline", "e7f2a3bac4e769e5c48dcc0199b83c7c8e995707", K.DETECTION, late=True),
    Repo("TheoViel/kaggle_islr", "148ccb9b35b321149ac716ed69966dd8e7efeb09", K.RESEARCH, late=True),
    Repo("TheoViel/kaggle_birdclef2024", "5ae1f1824deccb80cca37884ea9c1265ffe9a06e", K.SPEECH, late=True),
    Repo("JonasGeiping/cramming", "196c9912d8c5b06a05e9a58edd1521e3d38f7c0c", K.LLM, late=True),
    Repo("whwu95/BIKE", "e8f6a8b8b573878e03d1c06246d830d65bf87799", K.MULTIMODAL, late=True),
    Repo("oke-aditya/pytorch_cnn_trainer", "394322292fb0677d7a201a54fdec04145908d4f1", K.FRAMEWORK, late=True),
    Repo("ychfan/pt_ir", "843d34514103c958056381af0e28a80d7c8681de", K.VISION, late=True),
    Repo("TheoViel/kaggle_rsna_lumbar_spine", "0e4dbea8ce16249792ec64cefa4cd5510eda7cdb", K.VISION, late=True),
    Repo("starrytong/SCNet", "5d95bf96b19c3eede63248d171efeca8e3abb948", K.SPEECH, late=True),
    # stop 31, a twenty-first batch read first with the rules of 06d9e8a: speech enhancement,
    # music demixing, NeRF and Gaussian driving scenes, 3D medical segmentation, remote-sensing
    # self-supervision, video tracking, long-term forecasting, micro-video recommendation,
    # Dreamer, LLM quantisation, LLM recommendation, video LLM, video-to-audio, continual learning
    Repo("Audio-WestlakeU/FullSubNet", "e97448375cd1e883276ad583317b1828318910dc", K.SPEECH, late=True),
    Repo("kuielab/sdx23", "2f217926797bfc25edc4420200670ca288efe8a8", K.SPEECH, late=True),
    Repo("ashawkey/nerf2mesh", "ec7f930ccf768ba4d6e602360b4a6ff0300fe9c8", K.VISION, late=True),
    Repo("sarafridov/K-Planes", "b4cea7212cd5cf2d33889d9b6795873d1e0cd919", K.VISION, late=True),
    Repo("ziyc/drivestudio", "e59bda4fa681f829dbb1d65f0de582b0f633c450", K.VISION, late=True),
    Repo("ge-xing/SegMamba", "cff35970e0c542ad940b5701267f1ac888298b06", K.VISION, late=True),
    Repo("zhu-xlab/SSL4EO-S12", "2156913c5d8e5a2c572a5b000f0d5eaed6fc3192", K.VISION, late=True),
    Repo("hkchengrex/Tracking-Anything-with-DEVA", "404a112df77f9644d5c7211811329ccd8174b8c3", K.VISION, late=True),
    Repo("DAMO-DI-ML/ICML2022-FEDformer", "39f3bffd203518548c0bf3f16a8c1ae112648dfe", K.RESEARCH, late=True),
    Repo("thuml/Koopa", "a2e0bb77ec7c1a25e8e0579ba517ffb41358b844", K.RESEARCH, late=True),
    Repo("ACAT-SCUT/CycleNet", "af6e06ccf8389f8fadb524cbf5c89ef0349dc30f", K.RESEARCH, late=True),
    Repo("westlake-repl/MicroLens", "04635e0078462ef902058fac6fe9b8b32be3075f", K.RESEARCH, late=True),
    Repo("jsikyoon/dreamer-torch", "7c2331acd4fa6196d140943e977f23fb177398b3", K.RL, late=True),
    Repo("ChenMnZ/PrefixQuant", "97cc15b939e082851deac31ee97cca5838dd6727", K.LLM, late=True),
    Repo("zyang1580/CoLLM", "48042b168bb5aa41b42e9c89e7582b718e301556", K.LLM, late=True),
    Repo("DAMO-NLP-SG/Video-LLaMA", "64888c0a77e8e66af606c37629fbbf79c4582959", K.MULTIMODAL, late=True),
    Repo("hkchengrex/MMAudio", "974010a026c731054592d8f777218bd9d85a6c24", K.DIFFUSION, late=True),
    Repo("NVIDIAGameWorks/kaolin-wisp", "931707e50f1511fdb4af55eeb4aed4df23b7c2b1", K.FRAMEWORK, late=True),
    Repo("NVIDIA/torch-harmonics", "9e9fa5373bc66add241638ef7a481da2e5c80d32", K.FRAMEWORK, late=True),
    Repo("ContinualAI/avalanche", "eb075be393e1f458b2c352514ff6c17b5a2c0f4e", K.FRAMEWORK, late=True),
    # stop 32, a twenty-second batch read first with the rules of aa4781d: MAE pretraining,
    # medical segmentation (U-Mamba), super-resolution GAN, chat fine-tuning, time series,
    # birdsong, an optimizer paper's GPT, long-text CLIP, handwriting OCR, a course library,
    # protein-text design, a Kaggle RL agent, talking-head NeRF, remote-sensing MAE, LiDAR
    # detection, a single-script CIFAR ViT, distillation, point-cloud pretraining, a video VAE
    # GAN, voice conversion
    Repo("pengzhiliang/MAE-pytorch", "8b3ab30f99000ac56b2469de6fd48341ed799a21", K.VISION, late=True),
    Repo("bowang-lab/U-Mamba", "28459e33ca03769800dd35e23c6e62491d1925b5", K.DETECTION, late=True),
    Repo("Lornatang/SwinIR-PyTorch", "ad46c0ded7f770162fc2d554c1854f9600f1585b", K.TTS_GAN, late=True),
    Repo("VatsaDev/nanoChatGPT", "5fca0f6388029fdb16e22af864053a0a62cff32d", K.LLM, late=True),
    Repo("luodhhh/ModernTCN", "56a9a2c018385cd5acef015378cae7f084d1b11c", K.RESEARCH, late=True),
    Repo("ChristofHenkel/kaggle-birdclef2021-2nd-place", "26438069466242e9154aacb9818926dba7ddc7f0", K.SPEECH, late=True),
    Repo("Liuhong99/Sophia", "a7e157229b71d58cf995d32854f1be15c265b350", K.LLM, late=True),
    Repo("beichenzbc/Long-CLIP", "3966af9ae9331666309a22128468b734db4672a7", K.MULTIMODAL, late=True),
    Repo("FactoDeepLearning/SPAN", "4b794b1ddab5a2fb4e8b7edb252fa4655d780e32", K.RESEARCH, late=True),
    Repo("fastai/course22p2", "df9323235bc395b5c2f58a3d08b83761947b9b93", K.FRAMEWORK, late=True),
    Repo("chao1224/ProteinDT", "761f384bf8ec5be7cc3286b598fb23d87a0779ea", K.RESEARCH, late=True),
    Repo("IsaiahPressman/Kaggle_Lux_AI_2021", "973a6c6c63211b6c7ab6fdf50e026e458d1f6e4e", K.RL, late=True),
    Repo("Fictionarry/ER-NeRF", "0cf72d8fb598d321de86b445bcd363cc2f6346a5", K.NERF_3D, late=True),
    Repo("bair-climate-initiative/scale-mae", "89280d830037ff27c20459cdab03e01e633e29bb", K.VISION, late=True),
    Repo("Haiyang-W/DSVT", "8cfc2a6f23eed0b10aabcdc4768c60b184357061", K.NERF_3D, late=True),
    Repo("kentaroy47/vision-transformers-cifar10", "5bb83d36018b314c3020558541015bb01bce15bc", K.VISION, late=True),
    Repo("sunshangquan/logit-standardization-KD", "f6e5aa5172bad618e801163c3385322eea673754", K.RESEARCH, late=True),
    Repo("OpenGVLab/PonderV2", "aad65d6954633d82141de15d1eb5fa9a23964ee6", K.NERF_3D, late=True),
    Repo("ProgramerSalar/vae_from_scratch", "29a81ba765bbe779874c1d0c9451b7ce99db4b10", K.TTS_GAN, late=True),
    Repo("bshall/knn-vc", "848302a262f7299c738af49d74209790ed442a9f", K.SPEECH, late=True),
    # stop 32, a twenty-third batch read first with the rules of 610c09f: a trainer library
    # (tez), medical segmentation (nnFormer), a small VLM, masked image modelling (CAE), VITS2,
    # RLHF on nanoGPT, tiny-ImageNet distillation, SRCNN, tabular prior-fitted networks,
    # tracking (ViPT), weather nowcasting notebooks, point-cloud NAS, OCR, Stable Diffusion
    # fine-tuning, Chinese ASR, a callback framework (argus), molecular-dynamics GNNs, a
    # Kaggle RSNA solution, large-scale LM tutorials, world-model imitation learning
    Repo("abhishekkrthakur/tez", "b13119057221f6ae43a984bf6cf9bb2385817b83", K.FRAMEWORK, late=True),
    Repo("282857341/nnFormer", "d48aaeb05612a09538f70c38a2357149ea3a7ac0", K.DETECTION, late=True),
    Repo("jingyaogong/minimind-v", "959561791f824a2591a3988d2e5a629cc7a9b605", K.MULTIMODAL, late=True),
    Repo("Atten4Vis/CAE", "a7fd1628176358e3e76b0b042b0f6e9f3cd7c76c", K.VISION, late=True),
    Repo("daniilrobnikov/vits2", "0525da4a558da999a725b9fddaa4584617df328b", K.TTS_GAN, late=True),
    Repo("sanjeevanahilan/nanoChatGPT", "a77c85c2cdfca470a22df9547ed0757a34b1583f", K.LLM, late=True),
    Repo("zeyuanyin/torchvision-tiny-imagenet", "803239641511617d0b0187a284d26c2bd8bc003e", K.VISION, late=True),
    Repo("Lornatang/SRCNN-PyTorch", "a0a108ea47710118b7a3ba99d72290c409feacff", K.VISION, late=True),
    Repo("automl/PFNs", "edfcdcf1ff57fe93c286e064839b1b87cf1081de", K.RESEARCH, late=True),
    Repo("jiawen-zhu/ViPT", "f49f30186ebff5587600a61ff224bb341c0a3243", K.DETECTION, late=True),
    Repo("ui07xWizardOp/paper-weather-nowcasting", "f4818a34c033084b780cae620975c6468a63c4fb", K.RESEARCH, late=True),
    Repo("mit-han-lab/spvnas", "5c53224ca685844eb27caedf22817a89233ac0ce", K.NERF_3D, late=True),
    Repo("Topdu/OpenOCR", "ae934e5699e820b4e27b42f667629fb1505c0b1b", K.VISION, late=True),
    Repo("harubaru/waifu-diffusion", "1a83e470a4b2358f0353bc0df513c19f6c09d63a", K.DIFFUSION, late=True),
    Repo("yeyupiaoling/MASR", "fe0010de33440a11bb843ff2c424db4b7a310ac7", K.SPEECH, late=True),
    Repo("lRomul/argus", "87956a846df61bb3fc2ab11323ff6e0c952c2891", K.FRAMEWORK, late=True),
    Repo("kyonofx/MDsim", "61ca2cfba373fd374343592556789fa30fbe3b56", K.RESEARCH, late=True),
    Repo("Nischaydnk/RSNA-2023-1st-place-solution", "77ed554f80c626195d0e18adcd8a739b2a96ef86", K.VISION, late=True),
    Repo("tunib-ai/large-scale-lm-tutorials", "ca29ff9f945a59abcc3e3f1000c4d83de97973d4", K.LLM, late=True),
    Repo("Zoefia/Zoefia-aime-extrapolation", "c2e2194005ee20879f72e52c1d1f4d027b9eca97", K.RL, late=True),
    # stop 32, a twenty-fourth batch read first with the rules of f434cdb: a neural vocoder
    # (DiffWave), deblurring, tracking (VideoX SeqTrack), LLM recommendation (P5), a retinal
    # foundation model, video masked pretraining, 3D reconstruction (MCC), FSDP QLoRA, a climate
    # emulator (ACE), vision-language adapters, quantisation-aware LLM training, protein
    # fitness, retrieval embeddings (unicom), course notebooks, an EEG foundation model,
    # pathology DINO (HIPT), a vision backbone, audio tagging (whisper-at), two forecasters
    Repo("lmnt-com/diffwave", "0594106093b8d8c444de8bd8cd26482f653c569f", K.TTS_GAN, late=True),
    Repo("SeungjunNah/DeepDeblur-PyTorch", "26047f7a67ab8d1dec083b5d9e1d83b53eedbd17", K.VISION, late=True),
    Repo("microsoft/VideoX", "1744b2159c3d11694f94dab4fcde8660c685e79a", K.DETECTION, late=True),
    Repo("jeykigung/P5", "1fa28ba7bb3946da94677013cc88e392cfc760ca", K.LLM, late=True),
    Repo("rmaphoh/RETFound_MAE", "897d71c8c9b1d0ca1984370d4c4352722017b80a", K.VISION, late=True),
    Repo("MCG-NJU/MGMAE", "af7beb988fa9b06fba44c87db037529166020a1f", K.VISION, late=True),
    Repo("facebookresearch/MCC", "b04c97518360e4fdedfb6f090db7e90d0c2f8ae6", K.NERF_3D, late=True),
    Repo("AnswerDotAI/fsdp_qlora", "05ed9f2a60f96a0795cb082bceab70a9b19fd213", K.LLM, late=True),
    Repo("ai2cm/ace", "57c54a748cc7f06d9b5ad6d0e9e7922e5a3f54c2", K.RESEARCH, late=True),
    Repo("ylsung/VL_adapter", "545fcbbdbbaec4c442de35567f6ae477ff4e8265", K.MULTIMODAL, late=True),
    Repo("OpenGVLab/EfficientQAT", "78fd3fb6b6a2e70cc29d9e5d5f4fc6c3ea250619", K.LLM, late=True),
    Repo("OATML-Markslab/ProteinNPT", "ba50f15671870039aff8cff97081073dfcc73eb2", K.RESEARCH, late=True),
    Repo("deepglint/unicom", "ae7141123532a471f082753b993e8d504104a6fb", K.MULTIMODAL, late=True),
    Repo("jeffheaton/app_deep_learning", "c8d1e529bda98281b5889524d759ac80a0310665", K.RESEARCH, late=True),
    Repo("935963004/LaBraM", "c431221e6cfd23dbfa9950e0180682fb322b0548", K.RESEARCH, late=True),
    Repo("mahmoodlab/HIPT", "780fafaed2e5b112bc1ed6e78852af1fe6714342", K.VISION, late=True),
    Repo("LeapLabTHU/FLatten-Transformer", "abdb115f5406c0e1b6864aad7fe998a3f424ae76", K.VISION, late=True),
    Repo("YuanGongND/whisper-at", "17d94d6acd53866390ce70f95afa13507dcb8aef", K.SPEECH, late=True),
    Repo("wanghq21/MICN", "370c69b841d72246556ca05dd23163c560c22b5a", K.RESEARCH, late=True),
    Repo("Secilia-Cxy/SOFTS", "f5d35fd7c3e716b6383ce6d3cc42c131e32c3c44", K.RESEARCH, late=True),
    # stop 33, a twenty-fifth batch read first with the rules of f44d5ca (six: the session's
    # fetch budget ran out re-fetching the corpus): off-policy RL for humanoid control
    # (FastTD3), flow-matching TTS on icefall-style trainers (ZipVoice), a time-series
    # forecaster, medical segmentation (VM-UNet), FFCV ImageNet training, 3D-language
    # pretraining (ULIP)
    Repo("younggyoseo/FastTD3", "229ed59bbf43ea2f7a2d5d90d1076314839944d7", K.RL, late=True),
    Repo("k2-fsa/ZipVoice", "2f7326fbfe999a3ad179e3f1af82a424d4a62819", K.TTS_GAN, late=True),
    Repo("thuml/TimeXer", "76011909357972bd55a27adba2e1be994d81b327", K.RESEARCH, late=True),
    Repo("JCruan519/VM-UNet", "43c495bfd0cb2bd58fd0147687c60c9c624c4840", K.DETECTION, late=True),
    Repo("libffcv/ffcv-imagenet", "4dd291a122096a2032ec9fd19633e1b9aff3577d", K.VISION, late=True),
    Repo("salesforce/ULIP", "f194ddbfc1219ee1030e866b8be62d77539a3642", K.MULTIMODAL, late=True),
    # stop 35, a twenty-sixth batch of forty-eight read first with the rules of 435e194: singing
    # voice conversion, VITS/TTS, music generation, speech LLMs, audio-visual ASR, llama2.c
    # pretraining, robot RL, Hanabi MuZero; DETRs, YOLO toolkits, rotated-box aerial detection,
    # single-object trackers, medical and cell segmentation; matting, super-resolution,
    # hierarchical VAEs and latent diffusion, point-cloud diffusion, sparse convolution, 3D
    # generation, a GAN toolkit, multi-view stereo; time series, tabular in-context learning,
    # graph networks, recommendation, aspect sentiment, a GPT training library
    Repo("CNChTu/Diffusion-SVC", "451b4889c48aedd47daf2f711b70a9de3ae14803", K.TTS_GAN, late=True),
    Repo("descriptinc/audiotools", "348ebf2034ce24e2a91a553e3171cb00c0c71678", K.FRAMEWORK, late=True),
    Repo("FENRlR/MB-iSTFT-VITS2", "b1a49d9ac2cf6541f28ebf75b112b61afd2a38f1", K.TTS_GAN, late=True),
    Repo("ddPn08/rvc-webui", "b71742809a24cd89eb18081b831c0b1ac11ccb2a", K.TTS_GAN, late=True),
    Repo("ddlBoJack/SLAM-LLM", "3b620ade1ad2a87a43a4a4f8f2f8a6b6c45fc02c", K.SPEECH, late=True),
    Repo("chenyangMl/llama2.c-zh", "48c43b090a1161324c415b631fc7f680006f9aed", K.LLM, late=True),
    Repo("amazon-far/holosoma", "fc600e7db2de580509eedaa656ca6c601bd3af9b", K.RL, late=True),
    Repo("CODEJIN/NaturalSpeech2", "90593c6a58b55096c9230498cf7659901fbf1a6f", K.TTS_GAN, late=True),
    Repo("burchim/AVEC", "1bf8ad079b90af383090f1584a20fe9467f98f47", K.SPEECH, late=True),
    Repo("euhidaman/bitnet.c", "f3024250e142b1cdd15d155823fef5e4812920d6", K.LLM, late=True),
    Repo("FunAudioLLM/InspireMusic", "0aefb55b58b8df91accdc4aed20c99e44741e0a7", K.TTS_GAN, late=True),
    Repo("0xJchen/HanabiZero", "22d227e641fc37936078c5c6c27c56fbf2ec5586", K.RL, late=True),
    Repo("HDETR/H-Deformable-DETR", "f58ceb1165da4b0cd10e9a5a30c7a77fbd33f492", K.DETECTION, late=True),
    Repo("GXNU-ZhongLab/ODTrack", "88c0a8e4b50faa8fe4e087f1f4b634dc78b6911d", K.DETECTION, late=True),
    Repo("hukaixuan19970627/yolov5_obb", "b00c3f245e50e7a80460a1b949d22ea7dfeb27a0", K.DETECTION, late=True),
    Repo("iscyy/yoloair", "29a8465385eafed8ecaacfb4318a372fe67a55eb", K.DETECTION, late=True),
    Repo("Luffy03/VoCo", "ba7b7bd22e98a8807b4798abbc37846928750c1d", K.DETECTION, late=True),
    Repo("jahongir7174/YOLOv8-pt", "a53336ba72ea9114b99f848329475abca43e180a", K.DETECTION, late=True),
    Repo("LSH9832/edgeyolo", "73ecdec3c0e1c0b95da7780b8e66430f9b6bfd24", K.DETECTION, late=True),
    Repo("Lee-Gihun/MEDIAR", "c34aa0d1626567e678b62a0acb4464624328e291", K.DETECTION, late=True),
    Repo("LiYunfengLYF/LightFC", "97dc3405ec8e8c5ad3d3ad95cae7f12e4f17b5b0", K.DETECTION, late=True),
    Repo("Lornatang/YOLOv3-PyTorch", "1a9881fa18995ad7d14bc7019d76a34ca1b75e11", K.DETECTION, late=True),
    Repo("HUSTDML/CTTrack", "5559c271d0936a616ba072b1d0ae4606109b176b", K.DETECTION, late=True),
    Repo("Kou-99/ZoomTrack", "04d300d8c6b1ab0e4199aac18bf79a9276123213", K.DETECTION, late=True),
    Repo("PeterL1n/RobustVideoMatting", "53d74c6826735f01f4406b5ca9075eee27bec094", K.VISION, late=True),
    Repo("mit-han-lab/torchsparse", "385f5ce8718fcae93540511b7f5832f4e71fd835", K.NERF_3D, late=True),
    Repo("NVlabs/NVAE", "9fc1a288fb831c87d93a4e2663bc30ccf9225b29", K.DIFFUSION, late=True),
    Repo("NVlabs/LSGM", "5eae2f385c014f2250c3130152b6be711f6a3a5a", K.DIFFUSION, late=True),
    Repo("nv-tlabs/LION", "7711b3d185752eeb632d095494876e4de15f3195", K.NERF_3D, late=True),
    Repo("PeterL1n/BackgroundMattingV2", "a8e82df9f594578edf287dbb2b289ebcc50fbf00", K.VISION, late=True),
    Repo("nagadomi/nunif", "d23721f1b5f0a4c92c3ee1be013180bf298730c5", K.VISION, late=True),
    Repo("microsoft/TRELLIS", "6b0d64751ad54d9c32d7b05fec482eb29178f56f", K.NERF_3D, late=True),
    Repo("open-mmlab/mmgeneration", "ccd1f56c107886bb411e0fdf3a92aa6f1cf7024e", K.TTS_GAN, late=True),
    Repo("princeton-vl/CER-MVS", "8062ddf6626a28b50ac7161a80d33ed10bbbbd43", K.NERF_3D, late=True),
    Repo("Pointcept/PointTransformerV2", "5386c4d71f3d6c42c24a8105fce8750e9355dc54", K.NERF_3D, late=True),
    Repo("modelscope/scepter", "9f5b4399bf9f10d8b90409660a9078f0f0cf9714", K.DIFFUSION, late=True),
    Repo("thuml/AutoTimes", "9ff9aac5083e24c233404c35d7b7a3c0643f2c70", K.RESEARCH, late=True),
    Repo("yandex-research/tabgraphs", "239f8f7d16dc0e3537e0eb597f70552076ca98aa", K.RESEARCH, late=True),
    Repo("soda-inria/tabicl", "8f1aa2098c894ab91dba15209cf2002ba4be6c6c", K.RESEARCH, late=True),
    Repo("yangheng95/PyABSA", "dcfdb7b47d66a5c5e598138c868a0fb40714894d", K.FRAMEWORK, late=True),
    Repo("wzhwzhwzh0921/S-D-Mamba", "e7e8bf04066135afa43d85b0a87afa97cda16e3f", K.RESEARCH, late=True),
    Repo("westlake-repl/NineRec", "baef644b3c39d329f488728c9e7064b83430d8fe", K.RESEARCH, late=True),
    Repo("yandex-research/On-Efficient-Scaling-Of-GNNs", "e26d564701c64545ae6eef6b44b2fc95dc36a93e", K.RESEARCH, late=True),
    Repo("victorca25/traiNNer", "1d25dcdb4c6a3a1f63589bb4f724fa4857009f31", K.FRAMEWORK, late=True),
    Repo("westlake-repl/TCF", "4bef2bd8807e8fca792f57cecdbc80ef3f3e7b4d", K.RESEARCH, late=True),
    Repo("sytelus/nanuGPT", "7ba8b86c691ccae09508158a0ed3bb199a7eef2a", K.LLM, late=True),
    Repo("westlake-repl/Adapter4Rec", "721cba5309487696ef620e53cf95f85714088b10", K.RESEARCH, late=True),
    Repo("YoZhibo/MSGNet", "953b8330a2ca469dab4955e804b46a61eb08a9c2", K.RESEARCH, late=True),
    # stop 35, a twenty-seventh batch of forty-seven read first with the rules of 0b3e1b8:
    # masked-image and multimodal pretraining, entity embeddings, VITS-family TTS, machine
    # translation, large-kernel CNNs, referring segmentation, visual autoregressive generation,
    # multi-label heads, cooperative 3D detection; audio SSL, trackers, discrete diffusion,
    # camouflaged-object and medical segmentation, vocoders, report generation; scene
    # coordinate regression, a speech toolkit, MRI reconstruction, nanopore basecalling,
    # panoptic segmentation, NeRF, architecture search, SRGAN, scene graphs; retrieval, NLP
    # parsing, GNN benchmarks, speaker recognition, real-time detection, mixup toolbox,
    # world models, time-series pretraining, action detection
    Repo("EPFL-VILAB/MultiMAE", "66910f5b5ba236f5e731883db85fe4f24ee01106", K.VISION, late=True),
    Repo("cambridgeltl/sapbert", "1a528f66d277d91f99b6463b43ce5309a9279506", K.MULTIMODAL, late=True),
    Repo("anonymous-pits/pits", "26fa33abc296928532d42a0e0d05183a08e08826", K.TTS_GAN, late=True),
    Repo("awslabs/sockeye", "871d9863d6a657d87de1c90f44977c5b70c99c7e", K.FRAMEWORK, late=True),
    Repo("CODEJIN/HierSpeechpp", "ae0f370902e97da3414fbf1ca00686c25fbe54d3", K.TTS_GAN, late=True),
    Repo("AILab-CVC/UniRepLKNet", "b5677d8fb0e7b8af61eac39c1bf02727f5afc1d5", K.VISION, late=True),
    Repo("DerrickWang005/CRIS.pytorch", "e596332f8f5929a907ad66d2889e434d18f5eee7", K.MULTIMODAL, late=True),
    Repo("FoundationVision/Infinity", "4c27bbb54a9918847a2fe56b0fbe31a8523791a1", K.DIFFUSION, late=True),
    Repo("csuhan/OneLLM", "8587a4768cf376fb41f7d586e21de5d1ab1ca365", K.MULTIMODAL, late=True),
    Repo("Alibaba-MIIL/ML_Decoder", "8a9e984f671c9c30c98d2c45dfcaf4383381c254", K.VISION, late=True),
    Repo("DerrickXuNu/OpenCOOD", "31ba16025da27ffe4e336f011290dfbc66f9a1f1", K.DETECTION, late=True),
    Repo("facebookresearch/suncet", "731547d727b8c94d06c08a7848b4955de3a70cea", K.VISION, late=True),
    Repo("kdexd/virtex", "ae67b23f86ab10934f43df239666592acbd74631", K.MULTIMODAL, late=True),
    Repo("HanxunH/AudioMosaic", "67a86a8900ce00fb653f1c22f771a9688ec9de33", K.SPEECH, late=True),
    Repo("Haochen-Wang409/HPM", "c15ae9077160b7940957f1423071d84044e41c8b", K.VISION, late=True),
    Repo("LingyiHongfd/CompressTracker", "efd98ecea81468cb2dc48a63c2447a5539251ea6", K.DETECTION, late=True),
    Repo("louaaron/Score-Entropy-Discrete-Diffusion", "0605786da5ccb5747545e26d66fdf477187598b6", K.DIFFUSION, late=True),
    Repo("lartpang/ZoomNeXt", "e742cc33f353099a30488dbba87dc46fb9d8d281", K.DETECTION, late=True),
    Repo("HUANGLIZI/MGLL", "9ad5c2fa1210cfa28c66bf2a38fd4d4977b67e33", K.MULTIMODAL, late=True),
    Repo("lmnt-com/wavegrad", "c3d54c89631c61fb1099a88ffd8fa7623734f180", K.TTS_GAN, late=True),
    Repo("jbdel/vilmedic", "0642c4b933406588a589dac3333b2eb0326fe63c", K.MULTIMODAL, late=True),
    Repo("Liqu0012/MedMAE3D", "5e5decd2ebafbf55ad4109543592270f2036a926", K.VISION, late=True),
    Repo("LayneH/GreenMIM", "b98101221822ff0c7a3543f6691946a06163fc88", K.VISION, late=True),
    Repo("nianticlabs/ace", "e9e90f2d02ee92c348bf411a5a60e230af6c315e", K.NERF_3D, late=True),
    Repo("rwth-i6/returnn", "b46ff5f0f337266809082d2e88c33218940bc13b", K.SPEECH, late=True),
    Repo("NKI-AI/direct", "50b9704d2d7aa8eede763ced92e71b69baa8189d", K.VISION, late=True),
    Repo("nanoporetech/medaka", "366ff49ad9e2be6862e376630b51b3b3d28944c2", K.RESEARCH, late=True),
    Repo("NVlabs/ODISE", "2b187e4b2ff4c3d5da342aec2cc234b537720a65", K.DETECTION, late=True),
    Repo("NVlabs/EmerNeRF", "8c051d7cccbad3b52c7b11a519c971b8ead97e1a", K.NERF_3D, late=True),
    Repo("microsoft/archai", "6bb8ba3864263ec0e1f6795e5ce21cc4c1aac046", K.FRAMEWORK, late=True),
    Repo("NVlabs/sds-complete", "64fa943ba9514349ca64b423d18ce227d55204db", K.NERF_3D, late=True),
    Repo("nanoporetech/bonito", "1eb0c1c2d31a1c99a428cf61eaf449b41a47a2e9", K.RESEARCH, late=True),
    Repo("psc1453/SRGAN", "e6d51238c9f7eb270691fa1731096633398154e9", K.TTS_GAN, late=True),
    Repo("qncsn2016/TR2", "c0978a662db04fbdb6cfb7cd747c20f220cc7eee", K.MULTIMODAL, late=True),
    Repo("mathwrx/Decouple-and-Couple_Learning_in_Multi-Modal_Brain_Tumor_Segmentation", "31103ebc7db440883ee87c373ec4ff0430ee8f18", K.DETECTION, late=True),
    Repo("sebastian-hofstaetter/matchmaker", "210b9da0c46ee6b672f59ffbf8603e0f75edb2b6", K.MULTIMODAL, late=True),
    Repo("yzhangcs/parser", "bebdd350e034c517cd5b71185e056503290164fa", K.RESEARCH, late=True),
    Repo("yandex-research/gnn-fair-evaluation", "e38f53f85cee6c19976dcf82c6425e9f394deecb", K.RESEARCH, late=True),
    Repo("yeyupiaoling/VoiceprintRecognition-Pytorch", "4f77af2336858c3e2fb5a60ceda29b1ac60b0bd3", K.SPEECH, late=True),
    Repo("yjh0410/RT-ODLab", "a17c55d3fddb630ee8055e1dc6d8726e2dae5d88", K.DETECTION, late=True),
    Repo("ShoufaChen/AdaptFormer", "6967d676c1a5e5a11be2e2768a6e5c604bb043ed", K.VISION, late=True),
    Repo("yeyupiaoling/VITS-Pytorch", "5f27254d3b6418f2ffebe4e8b4f19d49fe8ed9f3", K.TTS_GAN, late=True),
    Repo("Westlake-AI/openmixup", "37e1372446ab35c03fcf77302539bd4a5bee47eb", K.VISION, late=True),
    Repo("thuml/ContextWM", "3a8bca8012f7b04a559a1165fcfbdfb639d08d37", K.RL, late=True),
    Repo("thuml/TimeSiam", "c06f05df6197af0d780fae16b272ee4bd7d54ed9", K.RESEARCH, late=True),
    Repo("yandex-research/graphpfn", "a4cf572d6c435c19e92db2331349e8fb1a3f7344", K.RESEARCH, late=True),
    Repo("sming256/OpenTAD", "3dd7b032d7a074bec9665001e4e7f9d1b71405b5", K.DETECTION, late=True),
    # stop 36, a twenty-eighth batch read first with the rules of a230d4f (B and D: geo-localization, semi-supervised, video, EEG, OCR, SNN, weather, TTS, separation, recsys, lidar)
    Repo("gmberton/CosPlace", "33ce8d0d2f35a875887b2ef7f00b2dde6cc38dd3", K.VISION, late=True),
    Repo("kekmodel/MPL-pytorch", "7dc629702034319eda113aba3b006ba968e8e882", K.RESEARCH, late=True),
    Repo("LeeDoYup/FixMatch-pytorch", "f167d6479b4ae109669b5bfa512ad3a23e572146", K.RESEARCH, late=True),
    Repo("kahnchana/svt", "1827106d56c3d69e7ceb38b22ccbde59cb6510e5", K.VISION, late=True),
    Repo("KHU-VLL/DEVIAS", "e9dccb7ac40b3266d279106ac3d069f323c0cc56", K.VISION, late=True),
    Repo("jh-jeong/smoothing-multiscale", "f3cb1d5e1f4e276b62ac224b78529c87957a3e42", K.RESEARCH, late=True),
    Repo("jeeyunryu/dig-seed", "e5d66e378210205a578a2457010494903bee08b3", K.VISION, late=True),
    Repo("Jamine-W/AdaBrain-Bench", "c29be9291b927b037325640137bf0871acc04f57", K.RESEARCH, late=True),
    Repo("Haochen-Wang409/DropPos", "13f50a83726fe41685f56684f0c0b8db6db7c080", K.VISION, late=True),
    Repo("Intelligent-Computing-Research-Group/SpikeZIP-TF", "8effa72a34682b9c544332fe8277b63cff60e4df", K.RESEARCH, late=True),
    Repo("gutzcha/human_micro_gesture_classifier", "ead5c4440196d0acebc494f0edfc24f08043579b", K.VISION, late=True),
    Repo("thuml/Corrformer", "e3e0c6d6ad9d542ed9e290ceccf212a51ffc0dc5", K.RESEARCH, late=True),
    Repo("wenet-e2e/wetts", "d6403e7208a711e0cc4feb269e6fd1beeb568e68", K.TTS_GAN, late=True),
    Repo("wenet-e2e/wesep", "cf8ee7fe4a517c515deefebe822fe60517ff9b87", K.SPEECH, late=True),
    Repo("twitter/the-algorithm-ml", "b85210863f7a94efded0ef5c5ccf4ff42767876c", K.RESEARCH, late=True),
    Repo("valeoai/ScaLR", "53c474d6953f3cf61744c07c73330899faa98940", K.NERF_3D, late=True),
    Repo("yeyupiaoling/SpeechEmotionRecognition-Pytorch", "6c2f4df522a01cb276f571e603d31075762c94c2", K.SPEECH, late=True),
    Repo("sunlicai/MAE-DFER", "80b651d4f669469df39fe5afbb40521fc9167782", K.VISION, late=True),
    # stop 36, batch C read first with the rules of a230d4f (3D diffusion, fMRI and wireless foundation models, scene coordinates, multimodal binding, image generation, point clouds, TTS, video and infrared MAE)
    Repo("NIRVANALAN/LN3Diff", "8894842697f2ba9c847622b9c8132efb62aae930", K.NERF_3D, late=True),
    Repo("MedARC-AI/fmri-fm", "6a2c3c6cf8995a534ee0d728779f6a247f167874", K.RESEARCH, late=True),
    Repo("Mohammad-Hallaq/tiny-Waves-FM", "3ed62d0c56c37e7cac7d634a0aa4b502e0b9cd95", K.RESEARCH, late=True),
    Repo("nianticlabs/acezero", "c500d15068cfa0e3f8046c6295fdea3a74a14e9c", K.NERF_3D, late=True),
    Repo("PKU-YuanGroup/LanguageBind", "7070c53375661cdb235801176b564b45f96f0648", K.MULTIMODAL, late=True),
    Repo("NeuraLiying/FreqExit", "8a2343a1ee088f12b962787ebc0fb32f966ca7ff", K.DIFFUSION, late=True),
    Repo("RayYoh/GaussianCross", "77e4e5095a896dea892efc0e24004b9434a0ab9a", K.NERF_3D, late=True),
    Repo("metavoiceio/metavoice-src", "de3fa211ac4621e03a5f990651aeecc64da418f5", K.TTS_GAN, late=True),
    Repo("PKU-YuanGroup/Next-Patch-Prediction", "e333f2c10fdc92aec25f2fd43cbbeea8f5c8e6ff", K.DIFFUSION, late=True),
    Repo("NUST-Machine-Intelligence-Laboratory/VideoMAC", "44558a187e6fca35af6e2004951ee05a76c782da", K.VISION, late=True),
    Repo("MountainChenCad/InfMAE-T", "ed24fefa970544968268a744704d66892158a816", K.VISION, late=True),
    # stop 36, batch A read first with the rules of a230d4f (TTS, LLM alignment, contrastive and masked pretraining, face and person re-identification, music transformers, a training framework, diffusion)
    Repo("collabora/WhisperSpeech", "e82850046beab70d775dc6e74aa4ff0633caf7bb", K.TTS_GAN, late=True),
    Repo("ethanyanjiali/minChatGPT", "311aa3a72f825bba539944d9183f2731a0d83601", K.LLM, late=True),
    Repo("CVMI-Lab/SlotCon", "30ff33d441bf787743a7cebaaf33a0ff5d5ad953", K.VISION, late=True),
    Repo("bubbliiiing/arcface-pytorch", "0faafe28eba416738893f1426b15774cdaa6d3ab", K.VISION, late=True),
    Repo("Alpha-VL/ConvMAE", "4c97b4c9ec9c85724bc9594eb7302c803ae58c19", K.VISION, late=True),
    Repo("cambridgeltl/mirror-bert", "8b6b9de97f6e9ba62310949240f1e08556887784", K.MULTIMODAL, late=True),
    Repo("AI-Guru/musictransformer2023", "8080049e9c2c5f7ec054edab3422a7146152e291", K.RESEARCH, late=True),
    Repo("damo-cv/TransReID", "dec55046fcdfadee14e2c28e2df89305d8f7557a", K.DETECTION, late=True),
    Repo("allenai/tango", "3400aa89d879fd4ea5b6986e4e24cdd852c0f4ad", K.FRAMEWORK, late=True),
    Repo("asigalov61/Giant-Music-Transformer", "32f4b1f90b8ec5fbc4da5c45b905657c7aacf013", K.RESEARCH, late=True),
    Repo("CODEJIN/VITS_Diffusion", "f2b715defd3141a6bbc5b1b3f14286ad952972b2", K.TTS_GAN, late=True),
    Repo("bubbliiiing/ddpm-pytorch", "6f3369c47f0d33d7b360c382f6203e9a28df088d", K.DIFFUSION, late=True),
)
BY_NAME: dict[str, Repo] = {r.name: r for r in REPOS}
# Project files that say which Python and torch the code targets; written beside the sources.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "requirements.txt")


def git_dir(mirror: Path, repo: str) -> Optional[Path]:
    owner, name = repo.split("/")
    for candidate in (mirror / f"{owner}+{name}" / "repo" / ".git", mirror / f"{owner}+{name}" / "repo", mirror / owner / name / ".git"):
        if (candidate / "objects").is_dir():
            return candidate
    return None


def selected(names: Optional[Iterable[str]]) -> list[Repo]:
    """The pinned repositories named (all when none); an unknown name is an error."""
    if not names:
        return list(REPOS)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise SystemExit(f"not in the corpus: {', '.join(unknown)}")
    return [BY_NAME[n] for n in names]


def _wanted(path: str, suffixes: tuple[str, ...], project_files: bool) -> bool:
    return path.endswith(suffixes) or (project_files and path.rsplit("/", 1)[-1] in PROJECT_FILES)


def materialise(git: Path, commit: str, dest: Path, suffixes: tuple[str, ...] = (".py",), project_files: bool = False) -> int:
    """Write the files of `commit` ending in `suffixes` (and the project files, when asked)
    under `dest` and make `dest` a git folder of its own, so it is its own project root;
    blobs the snapshot lacks are skipped. Returns the number of files written."""
    listing = subprocess.run(
        ["git", f"--git-dir={git}", "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.split(b"\0")
    entries = []
    for entry in listing:
        if not entry:
            continue
        meta, raw = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        path = raw.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode != b"120000" and _wanted(path, suffixes, project_files):
            entries.append((sha, path))
    cat = subprocess.Popen(["git", f"--git-dir={git}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert cat.stdin is not None and cat.stdout is not None
    written = 0
    for sha, path in entries:
        cat.stdin.write(sha + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    cat.stdin.close()
    cat.wait()
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    return written
