"""Every asset a meta graph lists exists under the SavedModel's `assets/` directory and is fed to a real tensor.

A SavedModel's assets (vocabularies, lookup-table files) are listed as
AssetFileDefs: the `asset_file_def` field, or in TF1 SavedModels the
`saved_model_assets` collection (the C++ loader reads the field when it is
non-empty, else the collection). When a model loads, each asset's path
under `assets/` is fed to the AssetFileDef's tensor and the init op reads
the file. Checked with TensorFlow 2.21 on copies of real SavedModels with
the asset file removed: `tf.saved_model.load` and
`tf.compat.v1.saved_model.load` both fail while initializing the lookup
table (`NotFoundError: .../assets/vocab.txt; No such file or directory`);
a model server fails to load the model the same way. The same holds for an
asset that is a directory (`Is a directory`), and for an empty vocabulary
file read by a table initializer (`InitializeTableFromTextFileV2`): every
loader fails at load (`Read less bytes than requested`, checked on a
`StaticHashTable` over a `TextFileInitializer`). An empty asset nothing
reads as a vocabulary is not reported. Two AssetFileDefs feeding one tensor
(the same entry listed twice) fail the C++ loader TF Serving runs (`Endpoint
"asset_path_initializer:0" fed more than once.`), while both Python loaders
load the model: reported, since the C++ loader is what serves.

The file check needs the SavedModel *directory* (`tflint export/1/`); when
a lone `saved_model.pb` is linted only the tensor names are checked. A
tensor name that names no node (or an output the node lacks) is reported
too: the loader's feed of the asset path fails.

How to fix: copy the missing file into `assets/` (re-exporting copies every
asset the graph uses), or remove the stale AssetFileDef.

Okay:
  graph_def {
    node { name: "vocab_path" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  }
  asset_file_def {
    tensor_info { name: "vocab_path:0" }
    filename: "vocab.txt"
  }
Fail:
  graph_def {
    node { name: "vocab_path" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  }
  asset_file_def {
    tensor_info { name: "vocab_path:0" }
    filename: "vocab.txt"
  }
  asset_file_def {
    tensor_info { name: "labels_path:0" }
    filename: "labels.txt"   # missing-asset
  }
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity, at_asset, at_meta_graph
from tflint.tf.index import GraphIndex
from tflint.tf.serving import asset_file_defs, resolve_tensor

ID = "missing-asset"
CATEGORY = "serving"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}


def check(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield an issue for each AssetFileDef whose file is absent or whose tensor does not exist."""
    meta = graph.meta_graph
    if meta is None:
        return
    listing = graph.artifact.directory_listing() if graph.artifact is not None else None
    in_field = len(meta.asset_file_def) > 0
    reported: set[str] = set()
    fed: set[str] = set()
    for ordinal, asset in enumerate(asset_file_defs(meta)):
        where = at_asset(ordinal) if in_field else at_meta_graph()
        filename = asset.filename
        name = asset.tensor_info.name
        if name and name in fed:
            yield Issue(
                None,
                f"Asset '{filename}' is fed to '{name}', which another AssetFileDef feeds too: TF Serving's loader "
                f"fails at load ('Endpoint \"{name}\" fed more than once.'); the Python loaders load",
                at=where,
            )
        fed.add(name)
        if name:
            resolved = resolve_tensor(graph, name)
            if resolved.problem is not None:
                yield Issue(
                    resolved.node,
                    f"Asset '{filename}' is fed to the tensor its AssetFileDef {resolved.problem}",
                    at=where,
                )
        if listing is None or not filename or filename in reported:
            continue
        shown = os.path.join(listing.root, "assets", filename)
        if filename in listing.asset_directories:
            problem = f"{shown} is a directory ('Is a directory')"
        elif filename not in listing.assets:
            problem = f"{shown} does not exist"
        elif listing.asset_sizes.get(filename) == 0 and _reads_vocabulary_files(graph):
            problem = (
                f"{shown} is empty and the graph initializes a table from a file ('Read less bytes than requested')"
            )
        else:
            continue
        reported.add(filename)
        yield Issue(
            None,
            f"Asset '{filename}' is listed by the meta graph but {problem}; loading fails when the init op reads it",
            at=where,
        )


TEXT_FILE_INITIALIZERS = frozenset({"InitializeTableFromTextFile", "InitializeTableFromTextFileV2"})


def _reads_vocabulary_files(graph: GraphIndex) -> bool:
    return any(TEXT_FILE_INITIALIZERS & scope.by_op().keys() for scope in graph.scopes())
