//! Backend choices in one place, generic over the element types so experiments can switch
//! precision by changing the aliases' arguments.

