(function_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(impl_item type: (_) @name) @definition.class
(mod_item name: (identifier) @name) @definition.module
