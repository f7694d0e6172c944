"""CUBIC ([CUBIC] RFC 8312): the loss cycle in closed form, the hybrid fluid model, and the packet law against it."""
