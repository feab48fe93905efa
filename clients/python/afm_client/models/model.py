from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_object import ModelObject
from ..models.model_type import ModelType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.generation_defaults_type_0 import GenerationDefaultsType0
    from ..models.model_capabilities_type_0 import ModelCapabilitiesType0


T = TypeVar("T", bound="Model")


@_attrs_define
class Model:
    """
    Attributes:
        id (str):
        object_ (ModelObject):
        created (int):
        owned_by (str):
        max_context_length (int | None | Unset): The context window in tokens (prompt plus output); null for a chat
            model not loaded yet. A request whose prompt does not fit gets 400 `context_length_exceeded`; its output limit
            is clipped to the room the prompt leaves.
        type_ (ModelType | Unset): What the model serves.
        capabilities (ModelCapabilitiesType0 | None | Unset): AFM extension. What a loaded chat model can do (null until
            it is loaded).
        loaded (bool | Unset): AFM extension: whether the model is resident now. Chat models load on first use (the
            default one at start-up) and the least recently used idle one is unloaded past `--max-loaded-models`; embedding
            models load on first use and stay.
        generation_defaults (GenerationDefaultsType0 | None | Unset): AFM extension. The sampling values a request to
            this chat model gets for each field it does not send, and where each comes from. Resolution, first found wins:
            the request's own field (an explicit `temperature: 0` decodes greedily, `top_k: 0` turns top-k off); the `afm
            serve` flag (`--temperature`, `--top-p`, ...); the model's own defaults (an MLX or Hugging Face folder's
            `generation_config.json`, a GGUF file's `general.sampling.*` metadata, or, for the packaged real models that
            carry neither, AFM's table chosen by measurement); then the server's fallback. Null for an embedding model, and
            for a chat model whose files cannot be read before it loads (a hub id not downloaded yet).
    """

    id: str
    object_: ModelObject
    created: int
    owned_by: str
    max_context_length: int | None | Unset = UNSET
    type_: ModelType | Unset = UNSET
    capabilities: ModelCapabilitiesType0 | None | Unset = UNSET
    loaded: bool | Unset = UNSET
    generation_defaults: GenerationDefaultsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.generation_defaults_type_0 import GenerationDefaultsType0  # noqa: PLC0415
        from ..models.model_capabilities_type_0 import ModelCapabilitiesType0  # noqa: PLC0415

        id = self.id

        object_ = self.object_.value

        created = self.created

        owned_by = self.owned_by

        max_context_length: int | None | Unset
        if isinstance(self.max_context_length, Unset):
            max_context_length = UNSET
        else:
            max_context_length = self.max_context_length

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        capabilities: dict[str, Any] | None | Unset
        if isinstance(self.capabilities, Unset):
            capabilities = UNSET
        elif isinstance(self.capabilities, ModelCapabilitiesType0):
            capabilities = self.capabilities.to_dict()
        else:
            capabilities = self.capabilities

        loaded = self.loaded

        generation_defaults: dict[str, Any] | None | Unset
        if isinstance(self.generation_defaults, Unset):
            generation_defaults = UNSET
        elif isinstance(self.generation_defaults, GenerationDefaultsType0):
            generation_defaults = self.generation_defaults.to_dict()
        else:
            generation_defaults = self.generation_defaults

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created": created,
                "owned_by": owned_by,
            }
        )
        if max_context_length is not UNSET:
            field_dict["max_context_length"] = max_context_length
        if type_ is not UNSET:
            field_dict["type"] = type_
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if loaded is not UNSET:
            field_dict["loaded"] = loaded
        if generation_defaults is not UNSET:
            field_dict["generation_defaults"] = generation_defaults

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.generation_defaults_type_0 import GenerationDefaultsType0  # noqa: PLC0415
        from ..models.model_capabilities_type_0 import ModelCapabilitiesType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ModelObject(d.pop("object"))

        created = d.pop("created")

        owned_by = d.pop("owned_by")

        def _parse_max_context_length(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_context_length = _parse_max_context_length(d.pop("max_context_length", UNSET))

        _type_ = d.pop("type", UNSET)
        type_: ModelType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = ModelType(_type_)

        def _parse_capabilities(data: object) -> ModelCapabilitiesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_model_capabilities_type_0 = ModelCapabilitiesType0.from_dict(data)

                return componentsschemas_model_capabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelCapabilitiesType0 | None | Unset, data)

        capabilities = _parse_capabilities(d.pop("capabilities", UNSET))

        loaded = d.pop("loaded", UNSET)

        def _parse_generation_defaults(data: object) -> GenerationDefaultsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_generation_defaults_type_0 = GenerationDefaultsType0.from_dict(data)

                return componentsschemas_generation_defaults_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GenerationDefaultsType0 | None | Unset, data)

        generation_defaults = _parse_generation_defaults(d.pop("generation_defaults", UNSET))

        model = cls(
            id=id,
            object_=object_,
            created=created,
            owned_by=owned_by,
            max_context_length=max_context_length,
            type_=type_,
            capabilities=capabilities,
            loaded=loaded,
            generation_defaults=generation_defaults,
        )

        model.additional_properties = d
        return model

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
