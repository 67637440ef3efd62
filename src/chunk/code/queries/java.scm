; Symbols of a Java file (see rust.scm for the conventions). Abstract and
; interface methods without a body stay in their container's chunk.

(method_declaration name: (identifier) @name body: (block)) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

((class_declaration name: (identifier) @name) @definition.class (#set! container))
((record_declaration name: (identifier) @name) @definition.class (#set! container))
((interface_declaration name: (identifier) @name) @definition.interface (#set! container))
((annotation_type_declaration name: (identifier) @name) @definition.interface (#set! container))
((enum_declaration name: (identifier) @name) @definition.enum (#set! container))

; Supertypes: `extends` and `implements`.
(class_declaration superclass: (superclass (_) @super)) @definition.class
(class_declaration interfaces: (super_interfaces (type_list (_) @super))) @definition.class
(record_declaration interfaces: (super_interfaces (type_list (_) @super))) @definition.class
(enum_declaration interfaces: (super_interfaces (type_list (_) @super))) @definition.enum
(interface_declaration (extends_interfaces (type_list (_) @super))) @definition.interface

; Members declared in their container's chunk: fields and constants (each
; name of `int a, b;`), methods without a body, enum constants.
(class_body
  (field_declaration declarator: (variable_declarator name: (identifier) @declared_name)) @declared.field)
(class_body (method_declaration name: (identifier) @declared_name !body) @declared.method)
(interface_body (method_declaration name: (identifier) @declared_name !body) @declared.method)
(interface_body
  (constant_declaration declarator: (variable_declarator name: (identifier) @declared_name)) @declared.const)
(enum_body (enum_constant name: (identifier) @declared_name) @declared.variant)
(enum_body_declarations
  (field_declaration declarator: (variable_declarator name: (identifier) @declared_name)) @declared.field)
